package terminal

import (
	"encoding/base64"
	"math/rand"
	"strings"
	"testing"
)

// base64Lines is PTY-like output: 76-character lines ending in CRLF.
func base64Lines(n int) []byte {
	raw := make([]byte, n*3/4)
	rand.New(rand.NewSource(1)).Read(raw)
	enc := base64.StdEncoding.EncodeToString(raw)
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76])
		b.WriteString("\r\n")
		enc = enc[76:]
	}
	return []byte(b.String())
}

func BenchmarkTextFilter(b *testing.B) {
	in := base64Lines(1 << 20)
	f := textFilter{out: newRing(DefaultOutputLimit)}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		for i := 0; i < len(in); i += 4095 {
			f.write(in[i:min(i+4095, len(in))])
		}
	}
}

type nullSink struct{}

func (nullSink) Open(TaskInfo)                {}
func (nullSink) Output(string, int64, string) {}
func (nullSink) Exit(string, int, string)     {}

func BenchmarkStreamWrite(b *testing.B) {
	in := base64Lines(1 << 20)
	s := newStream(nullSink{}, TaskInfo{ID: "t1"})
	defer s.finish(0, "")
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		for i := 0; i < len(in); i += 4095 {
			s.write(in[i:min(i+4095, len(in))])
		}
	}
}

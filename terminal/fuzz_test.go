package terminal

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// FuzzTextFilter checks that the model text does not depend on how the
// output was split into reads, and that it stays valid once made valid.
func FuzzTextFilter(f *testing.F) {
	f.Add([]byte("\x1b[1;31mred\x1b[0m\r\nget 10%\rget 99%\n\x1b]0;t\x07ok\bK"), uint8(3))
	f.Add([]byte("café €\xff\xfe\n"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		whole := textFilter{out: newRing(1 << 20)}
		whole.write(in)
		parts := textFilter{out: newRing(1 << 20)}
		n := int(step%16) + 1
		for i := 0; i < len(in); i += n {
			parts.write(in[i:min(i+n, len(in))])
		}
		a, _ := whole.out.since(0)
		b, _ := parts.out.since(0)
		if string(a) != string(b) || string(whole.partial()) != string(parts.partial()) {
			t.Fatalf("split by %d: %q + %q, whole: %q + %q", n, b, parts.partial(), a, whole.partial())
		}
		if s := validText(append(a, whole.partial()...)); !utf8.ValidString(s) {
			t.Fatalf("invalid text %q", s)
		}
		_ = compactText(string(a), 16, 32)
	})
}

type collectSink struct {
	mu   sync.Mutex
	data strings.Builder
	bad  string
	done chan struct{}
}

func (c *collectSink) Open(TaskInfo) {}
func (c *collectSink) Output(_ string, _ int64, data string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !utf8.ValidString(data) {
		c.bad = data
	}
	c.data.WriteString(data)
}
func (c *collectSink) Exit(string, int, string) { close(c.done) }

// FuzzStreamChunks checks that the editor stream delivers valid UTF-8 chunks
// whose concatenation is the input, however the reads were split.
func FuzzStreamChunks(f *testing.F) {
	f.Add([]byte("café costs 5€\n"), uint8(1))
	f.Add([]byte("\xe2\x82\xac\xe2\x82"), uint8(2))
	f.Add([]byte("a\xffb\xc3"), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		sink := &collectSink{done: make(chan struct{})}
		s := newStream(sink, TaskInfo{ID: "t1"})
		n := int(step%8) + 1
		for i := 0; i < len(in); i += n {
			s.write(in[i:min(i+n, len(in))])
		}
		s.finish(0, "")
		<-sink.done
		if sink.bad != "" {
			t.Fatalf("invalid chunk %q", sink.bad)
		}
		if got, want := sink.data.String(), validText(in); got != want {
			t.Fatalf("stream gave %q, want %q", got, want)
		}
	})
}

// FuzzIsReadOnlyCommand only checks that no input makes the classifiers
// panic and that read-only commands hold no shell metacharacters.
func FuzzIsReadOnlyCommand(f *testing.F) {
	for _, s := range []string{"ls -la", "git log --oneline", "find . -name '*.go'", "echo \"a b\"", "cat 'x", "rm -rf /"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		_ = Classify(cmd)
		if IsReadOnlyCommand(cmd) {
			unquoted := cmd
			for _, q := range []string{"'", "\""} {
				for {
					i := strings.Index(unquoted, q)
					if i < 0 {
						break
					}
					j := strings.Index(unquoted[i+1:], q)
					if j < 0 {
						break
					}
					unquoted = unquoted[:i] + unquoted[i+1+j+1:]
				}
			}
			if strings.ContainsAny(unquoted, "$`;|&<>()\n") {
				t.Fatalf("IsReadOnlyCommand(%q) = true with metacharacters", cmd)
			}
		}
	})
}

func TestFilterLongLinesIndependentOfReads(t *testing.T) {
	in := []byte(strings.Repeat("é", 6000) + "\rBB\n" + strings.Repeat("\tx", 5000) + "\n")
	whole := textFilter{out: newRing(1 << 20)}
	whole.write(in)
	for _, n := range []int{1, 7, 4096} {
		parts := textFilter{out: newRing(1 << 20)}
		for i := 0; i < len(in); i += n {
			parts.write(in[i:min(i+n, len(in))])
		}
		a, _ := whole.out.since(0)
		b, _ := parts.out.since(0)
		if string(a) != string(b) || !utf8.Valid(b) {
			t.Errorf("split by %d gives %d bytes, whole gives %d", n, len(b), len(a))
		}
	}
}

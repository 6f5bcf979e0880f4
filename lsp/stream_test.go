package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// FuzzFrameStream feeds arbitrary bytes to the message reader: it must
// never panic, never return a message that is not valid JSON-RPC, and end
// with EOF (or an unexpected EOF) once the input runs out.
func FuzzFrameStream(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":1}   ",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"\r\n\r\nContent-Length: 3\r\n\r\n[1]",
		"Content-Type: a\r\nContent-Length: 5\r\n\r\nnull ",
		"no colon\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		s := newFrameStream(bytes.NewReader(in), &out, nil, 1<<16, slog.New(slog.DiscardHandler))
		for i := 0; i < 10000; i++ {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("Read error %v, want EOF at the end of input", err)
				}
				return
			}
			if msg == nil {
				t.Fatalf("Read returned no message and no error")
			}
		}
		t.Fatalf("Read did not reach the end of a %d-byte input", len(in))
	})
}

// slowWriter records everything and takes a little while per write, so
// that concurrent frames queue up behind a write in progress.
type slowWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(50 * time.Microsecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

// TestConcurrentWritesStayWholeFrames writes frames from many goroutines:
// every frame must come out whole and parseable, and queued frames share
// writes.
func TestConcurrentWritesStayWholeFrames(t *testing.T) {
	var out slowWriter
	s := newFrameStream(strings.NewReader(""), &out, nil, 0, slog.New(slog.DiscardHandler))
	const writers, each = 8, 300
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"n","params":{"w":%d,"i":%d,"pad":%q}}`, w, i, strings.Repeat("x", i%97))
				if _, err := s.writeRaw([]byte(body)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	r := newFrameStream(bytes.NewReader(out.buf.Bytes()), io.Discard, nil, 0, slog.New(slog.DiscardHandler))
	next := make([]int, writers)
	for n := 0; ; n++ {
		msg, _, err := r.Read(context.Background())
		if errors.Is(err, io.EOF) {
			if n != writers*each {
				t.Fatalf("read %d frames, want %d", n, writers*each)
			}
			break
		}
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		var p struct{ W, I int }
		json.Unmarshal(msg.(*jsonrpc2.Notification).Params(), &p)
		if p.I != next[p.W] {
			t.Fatalf("writer %d: frame %d arrived when %d was due", p.W, p.I, next[p.W])
		}
		next[p.W]++
	}
	if out.writes >= writers*each {
		t.Logf("no frames shared a write (%d writes); the machine may be idle", out.writes)
	}
}

// TestMalformedHeadersResynchronize sends frames whose header blocks are
// malformed — so their bodies' lengths are unknown — between good ones:
// every good frame after them must still be read (a server that lost the
// framing would answer nothing ever again).
func TestMalformedHeadersResynchronize(t *testing.T) {
	frame := func(header, body string) string { return header + "\r\n\r\n" + body }
	good := func(id int) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)
		return frame(fmt.Sprintf("Content-Length: %d", len(body)), body)
	}
	bad := `{"jsonrpc":"2.0","id":99,"method":"lost"}`
	for _, tc := range []struct{ name, in string }{
		{"non-numeric length", good(1) + frame("Content-Length: abc", bad) + good(2) + good(3)},
		{"no length", good(1) + frame("Content-Type: application/vscode-jsonrpc", bad) + good(2) + good(3)},
		{"line without a colon", good(1) + frame("garbage", bad) + good(2) + good(3)},
		{"lower-case name after a bad block", good(1) + frame("Content-Length: -5", bad) + strings.Replace(good(2), "Content-Length", "content-length", 1) + good(3)},
		{"two bad blocks in a row", good(1) + frame("Content-Length: x", bad) + frame("Content-Length: y", bad) + good(2) + good(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFrameStream(strings.NewReader(tc.in), io.Discard, nil, 0, slog.New(slog.DiscardHandler))
			var ids []string
			for {
				msg, _, err := s.Read(context.Background())
				if err != nil {
					break
				}
				if c, ok := msg.(*jsonrpc2.Call); ok {
					ids = append(ids, fmt.Sprint(c.ID()))
				}
			}
			if got, want := strings.Join(ids, ","), "1,2,3"; got != want {
				t.Errorf("ids read = %q, want %q", got, want)
			}
		})
	}
}

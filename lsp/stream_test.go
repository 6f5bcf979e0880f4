package lsp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
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

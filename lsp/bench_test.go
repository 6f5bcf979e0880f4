package lsp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

type pipeRW struct {
	io.Reader
	io.WriteCloser
}

// BenchmarkReadFileRoundTrip measures whale.read_file of a 4 KiB file
// through the whole server in process (framing, dispatch, tool, envelope),
// with 8 calls in flight.
func BenchmarkReadFileRoundTrip(b *testing.B) {
	ws := b.TempDir()
	var content strings.Builder
	for i := 0; content.Len() < 4000; i++ {
		fmt.Fprintf(&content, "line %04d: the quick brown fox jumps\n", i)
	}
	os.WriteFile(filepath.Join(ws, "file.txt"), []byte(content.String()), 0o644)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Run(ctx, Options{In: sr, Out: sw, DefaultRoot: ws})
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRW{cr, cw}))
	conn.Go(ctx, jsonrpc2.MethodNotFoundHandler)
	if _, err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		b.Fatal(err)
	}
	params := map[string]any{"command": "whale.read_file", "arguments": []any{map[string]any{"file_path": "file.txt"}}}
	b.SetParallelism(4) // 2 cores × 4 = 8 in flight
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var res struct {
				OK bool `json:"ok"`
			}
			if _, err := conn.Call(ctx, "workspace/executeCommand", params, &res); err != nil || !res.OK {
				b.Errorf("call: %v", err)
				return
			}
		}
	})
}

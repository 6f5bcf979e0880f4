package lsp

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// stuckTool is a tool that ignores cancellation: it reports its call's
// context on started and returns only when release is closed.
func stuckTool(started chan<- context.Context, release <-chan struct{}) toolbridge.Tool {
	return toolbridge.Define(toolbridge.Spec{
		Name:        "stuck",
		Description: "Test tool: ignores cancellation.",
		InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{}),
	}, func(ctx context.Context, _ struct{}) (toolbridge.Result, error) {
		started <- ctx
		<-release
		return toolbridge.Result{Text: "released"}, nil
	})
}

func lspFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestRunEndsWithAToolStillRunning: whichever way the session ends, Run
// cancels the call in flight and returns although the tool never does.
func TestRunEndsWithAToolStillRunning(t *testing.T) {
	for _, tc := range []struct {
		name string
		// end ends the session: input is the client's end of the server's
		// input, output the reading end of its output.
		end func(input io.WriteCloser, output io.ReadCloser, stop context.CancelFunc)
	}{
		{"input ends", func(input io.WriteCloser, _ io.ReadCloser, _ context.CancelFunc) { input.Close() }},
		{"output breaks", func(input io.WriteCloser, output io.ReadCloser, _ context.CancelFunc) {
			output.Close()
			io.WriteString(input, lspFrame(`{"jsonrpc":"2.0","id":3,"method":"whale/tools","params":{}}`))
		}},
		{"stopped", func(_ io.WriteCloser, _ io.ReadCloser, stop context.CancelFunc) { stop() }},
		{"exit", func(input io.WriteCloser, _ io.ReadCloser, _ context.CancelFunc) {
			io.WriteString(input, lspFrame(`{"jsonrpc":"2.0","method":"exit"}`))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the attach socket
			started := make(chan context.Context, 1)
			release := make(chan struct{})
			defer close(release)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			defer inW.Close()
			go io.Copy(io.Discard, outR)
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			returned := make(chan int, 1)
			go func() {
				returned <- Run(ctx, Options{In: inR, Out: outW, DefaultRoot: t.TempDir(), ExtraTools: func(catalog.Env) []toolbridge.Tool {
					return []toolbridge.Tool{stuckTool(started, release)}
				}})
			}()
			io.WriteString(inW, lspFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
			io.WriteString(inW, lspFrame(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"whale.stuck","arguments":[{}]}}`))
			var call context.Context
			select {
			case call = <-started:
			case <-time.After(30 * time.Second):
				t.Fatal("the call never reached the tool")
			}
			tc.end(inW, outR, stop)
			select {
			case <-call.Done():
			case <-time.After(30 * time.Second):
				t.Fatal("the call in flight was not canceled")
			}
			select {
			case <-returned:
			case <-time.After(30 * time.Second):
				t.Fatal("Run did not return while the tool was still running")
			}
		})
	}
}

package mcpfront

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// stuckBackend holds every call until release is closed, whatever happens
// to the call's context (a tool that ignores cancellation), and hands each
// call's context to started.
type stuckBackend struct {
	started chan context.Context
	release chan struct{}
}

func newStuckBackend(t *testing.T) *stuckBackend {
	b := &stuckBackend{started: make(chan context.Context, 1), release: make(chan struct{})}
	t.Cleanup(func() { close(b.release) })
	return b
}

func (b *stuckBackend) Tools(context.Context) ([]toolbridge.Spec, error) {
	return []toolbridge.Spec{{Name: "hold", Description: "holds", InputSchema: toolbridge.Object(nil, nil)}}, nil
}

func (b *stuckBackend) Call(ctx context.Context, _ string, _ json.RawMessage) (toolbridge.Envelope, error) {
	b.started <- ctx
	<-b.release
	return toolbridge.Envelope{OK: true, Code: toolbridge.CodeOK, Text: "released"}, nil
}

// held starts a call of "hold" from a client of transport ct and returns
// the backend's context of it and the function that cancels the client's.
func held(t *testing.T, b *stuckBackend, ct mcp.Transport) (context.Context, context.CancelFunc) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { go cs.Close() })
	callCtx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go cs.CallTool(callCtx, &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
	select {
	case ctx := <-b.started:
		return ctx, cancel
	case <-time.After(30 * time.Second):
		t.Fatal("the call never reached the backend")
	}
	return nil, nil
}

func wantDone(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
}

// stuckServer serves a stuckBackend.
func stuckServer(t *testing.T) (*Server, *stuckBackend) {
	t.Helper()
	b := newStuckBackend(t)
	srv, err := New(context.Background(), b, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, b
}

// returns runs f and returns a channel closed when f returns.
func returns(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return done
}

// TestStopCancelsCallsAndReturns: when Run's context ends, the call in
// flight is canceled and Run returns although the backend never does.
func TestStopCancelsCallsAndReturns(t *testing.T) {
	srv, b := stuckServer(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	st, ct := mcp.NewInMemoryTransports()
	returned := returns(func() { srv.Run(ctx, st) })
	call, _ := held(t, b, ct)
	stop()
	wantDone(t, "cancellation of the call", call.Done())
	wantDone(t, "Run's return with a tool still running", returned)
}

// TestServeReturnsWhenInputEnds: when the client's input ends, the call in
// flight is canceled and Serve returns although the backend never does.
func TestServeReturnsWhenInputEnds(t *testing.T) {
	srv, b := stuckServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	returned := returns(func() { srv.Serve(context.Background(), inR, outW) })
	call, _ := held(t, b, &mcp.IOTransport{Reader: outR, Writer: inW})
	inW.Close()
	wantDone(t, "cancellation of the call", call.Done())
	wantDone(t, "Serve's return with a tool still running", returned)
}

// TestClientCancellationReachesTheBackend: a call the client cancels
// (notifications/cancelled) is canceled in the backend.
func TestClientCancellationReachesTheBackend(t *testing.T) {
	srv, b := stuckServer(t)
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(context.Background(), st)
	call, cancel := held(t, b, ct)
	cancel()
	wantDone(t, "cancellation of the call", call.Done())
}

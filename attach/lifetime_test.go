package attach

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// holdService holds every call until its context ends and hands each
// call's context to started.
type holdService struct{ started chan context.Context }

func (holdService) Specs() []toolbridge.Spec { return echoService{}.Specs() }

func (h holdService) Dispatch(ctx context.Context, _ toolbridge.Call) toolbridge.Envelope {
	h.started <- ctx
	<-ctx.Done()
	return toolbridge.Envelope{Code: toolbridge.CodeCanceled, Text: "canceled"}
}

// heldCall starts a listener with holdService, dials it and starts one
// call; it returns the client, the listener, the server-side context of
// the call and the function that cancels the client's context.
func heldCall(t *testing.T) (*Client, *Listener, context.Context, context.CancelFunc) {
	t.Helper()
	dir, root := t.TempDir(), t.TempDir()
	svc := holdService{started: make(chan context.Context, 1)}
	l, err := Listen([]string{root}, svc, ListenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	c, err := Dial(ctx(t), root, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	callCtx, cancel := context.WithCancel(ctx(t))
	go c.Call(callCtx, "hold", nil)
	select {
	case server := <-svc.started:
		return c, l, server, cancel
	case <-time.After(30 * time.Second):
		t.Fatal("the call never reached the server")
	}
	return nil, nil, nil, nil
}

func wantCanceled(t *testing.T, what string, server context.Context, cause error) {
	t.Helper()
	select {
	case <-server.Done():
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the server's call was not canceled", what)
	}
	if got := context.Cause(server); !errors.Is(got, cause) {
		t.Errorf("%s: the call was canceled because %v, want %v", what, got, cause)
	}
}

// TestServerCancelsAttachedCalls: a call running in the server ends when
// the client cancels it, when the client's connection ends and when the
// listener closes.
func TestServerCancelsAttachedCalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		end   func(c *Client, l *Listener, cancel context.CancelFunc)
		cause error
	}{
		{"client cancels", func(_ *Client, _ *Listener, cancel context.CancelFunc) { cancel() }, errCanceledByClient},
		{"client leaves", func(c *Client, _ *Listener, _ context.CancelFunc) { c.Close() }, errClientGone},
		{"listener closes", func(_ *Client, l *Listener, _ context.CancelFunc) { l.Close() }, errListenerClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, l, server, cancel := heldCall(t)
			defer cancel()
			tc.end(c, l, cancel)
			wantCanceled(t, tc.name, server, tc.cause)
		})
	}
}

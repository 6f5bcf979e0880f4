package mcpfront

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// serveHTTP serves a registry like connect's (finder activates "late") on
// 127.0.0.1 with token, until the test ends; it returns the endpoint URL
// and a function that stops the server and says when ServeOn returned.
func serveHTTP(t *testing.T, token string, o HTTPOptions) (string, func() <-chan struct{}) {
	t.Helper()
	srv, err := New(context.Background(), Local{Registry: finderRegistry(t)}, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	o.Token = token
	returned := returns(func() { srv.ServeOn(ctx, ln, o) })
	t.Cleanup(func() {
		stop()
		<-returned
	})
	return "http://" + ln.Addr().String() + HTTPPath, func() <-chan struct{} { stop(); return returned }
}

// bearer adds a token to every request of the SDK's HTTP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPClient: the official SDK's Streamable HTTP client, with the
// token, lists and calls tools, gets tools/list_changed on its standalone
// SSE stream when a call activates a tool, and the session ends when the
// server stops.
func TestHTTPClient(t *testing.T) {
	const token = "s3cret"
	url, stop := serveHTTP(t, token, HTTPOptions{})
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("Connect over HTTP = %v", err)
	}
	defer cs.Close()
	if cs.ID() == "" {
		t.Error("no Mcp-Session-Id: the session is not stateful")
	}
	if names := toolNames(t, cs); !slices.Equal(names, []string{"finder"}) {
		t.Fatalf("tools = %v, want finder", names)
	}
	if text, isErr, _ := callTool(t, cs, "finder"); isErr || text != "finder: hi" {
		t.Errorf("finder = %q isError=%v", text, isErr)
	}
	if text, isErr, _ := callTool(t, cs, "late"); isErr || text != "late: hi" {
		t.Fatalf("unlisted call = %q isError=%v, want the activated tool's answer", text, isErr)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no tools/list_changed over the SSE stream after the activation")
	}
	if names := toolNames(t, cs); !slices.Equal(names, []string{"finder", "late"}) {
		t.Errorf("tools after the activation = %v, want late listed", names)
	}
	wantDone(t, "ServeOn's return after its context ended", stop())
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Error("ListTools after the server stopped succeeded")
	}
}

// TestHTTPSecurity: a request without the token, with a wrong one, from a
// foreign origin or with a foreign Host is refused before it reaches the
// MCP session; the right token from a loopback or allowed origin is
// served. A listen address that is not loopback is refused unless allowed.
func TestHTTPSecurity(t *testing.T) {
	const token = "right-token"
	url, _ := serveHTTP(t, token, HTTPOptions{AllowedOrigins: []string{"https://chat.example"}})
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
		body   string
	}{
		{"no token", nil, http.StatusUnauthorized, "Authorization: Bearer"},
		{"wrong token", map[string]string{"Authorization": "Bearer wrong-token"}, http.StatusUnauthorized, "Unauthorized"},
		{"token without Bearer", map[string]string{"Authorization": token}, http.StatusUnauthorized, "Unauthorized"},
		{"foreign origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden, "evil.example"},
		{"foreign origin, no token", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, "evil.example"},
		{"foreign Host (DNS rebinding)", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example"}, http.StatusForbidden, "evil.example"},
		{"foreign Host, no token", map[string]string{"Host": "evil.example:80"}, http.StatusForbidden, "evil.example"},
		{"right token", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK, `"serverInfo"`},
		{"loopback origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://localhost:5173"}, http.StatusOK, `"serverInfo"`},
		{"allowed origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://chat.example"}, http.StatusOK, `"serverInfo"`},
	} {
		req, err := http.NewRequest("POST", url, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.header {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.body) {
			t.Errorf("%s: status %d, body %q; want %d and %q", tc.name, resp.StatusCode, body, tc.status, tc.body)
		}
		if tc.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate = %q, want a Bearer challenge", tc.name, resp.Header.Get("WWW-Authenticate"))
		}
	}

	// Only loopback addresses are bound here: an allowed remote address is
	// one this machine does not have (TEST-NET-1), whose bind then fails
	// for that reason, not for the rule.
	for _, tc := range []struct {
		addr        string
		allowRemote bool
		ok, refused bool
	}{
		{"127.0.0.1:0", false, true, false},
		{"localhost:0", false, true, false},
		{"[::1]:0", true, true, false},
		{"0.0.0.0:0", false, false, true},
		{":0", false, false, true},
		{"192.0.2.1:0", false, false, true},
		{"192.0.2.1:0", true, false, false},
		{"127.0.0.1", false, false, false}, // no port
	} {
		ln, err := Listen(tc.addr, tc.allowRemote)
		if ln != nil {
			ln.Close()
		}
		if tc.addr == "[::1]:0" && err != nil && !errors.Is(err, ErrNotLoopback) {
			continue // no IPv6 loopback here
		}
		if (err == nil) != tc.ok || errors.Is(err, ErrNotLoopback) != tc.refused {
			t.Errorf("Listen(%q, allowRemote=%v) = %v, want ok=%v, refused as not loopback=%v", tc.addr, tc.allowRemote, err, tc.ok, tc.refused)
		}
	}
	if srv, err := New(context.Background(), Local{Registry: toolbridge.NewRegistry(nil)}, Options{}); err != nil {
		t.Fatal(err)
	} else if _, err := srv.Handler(HTTPOptions{}); err == nil {
		t.Error("Handler without a token = nil error, want a refusal")
	}
	if tok, err := NewToken(); err != nil || len(tok) != 64 {
		t.Errorf("NewToken() = %q, %v; want 64 hex digits", tok, err)
	}
}

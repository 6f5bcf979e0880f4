package mcpfront

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// echoTool answers "<name>: <text>".
func echoTool(name string) toolbridge.Tool {
	return toolbridge.Define(toolbridge.Spec{Name: name, Description: "echo", InputSchema: toolbridge.Object([]string{"text"}, map[string]*toolbridge.Schema{"text": toolbridge.Str("text")})},
		func(_ context.Context, in struct {
			Text string `json:"text"`
		}) (toolbridge.Result, error) {
			return toolbridge.Result{Text: name + ": " + in.Text}, nil
		})
}

// finderRegistry holds "finder", whose FindDeferred activates "late".
func finderRegistry(t *testing.T) *toolbridge.Registry {
	t.Helper()
	finder := echoTool("finder")
	finder.FindDeferred = func(_ context.Context, name string) (toolbridge.Tool, bool, error) {
		return echoTool(name), name == "late", nil
	}
	reg := toolbridge.NewRegistry(nil)
	if err := reg.Register(finder); err != nil {
		t.Fatal(err)
	}
	return reg
}

// connect serves a registry whose "finder" tool activates "late" on demand
// and connects a client over in-memory transports; changed receives its
// tools/list_changed notifications.
func connect(t *testing.T) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	reg := finderRegistry(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	srv, err := New(ctx, Local{Registry: reg}, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string) (string, bool, toolbridge.Envelope) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatalf("CallTool(%s) = %v, want a result, not a protocol error", name, err)
	}
	code, _ := res.Meta[MetaCode].(string)
	return res.Content[0].(*mcp.TextContent).Text, res.IsError, toolbridge.Envelope{OK: !res.IsError, Code: code}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestUnlistedCallReachesTheBackend: a call of a name the server does not
// list goes to the backend; a tool it activates is listed before the result
// returns and announced with tools/list_changed; a name nobody owns is an
// unknown_tool Envelope, not a protocol error.
func TestUnlistedCallReachesTheBackend(t *testing.T) {
	cs, changed := connect(t)
	if names := toolNames(t, cs); !slices.Equal(names, []string{"finder"}) {
		t.Fatalf("tools = %v, want only finder", names)
	}
	text, isErr, env := callTool(t, cs, "nothing")
	if !isErr || env.Code != toolbridge.CodeUnknownTool || !strings.HasPrefix(text, "unknown_tool: ") {
		t.Errorf("unknown name = %q isError=%v code=%s, want an unknown_tool Envelope", text, isErr, env.Code)
	}
	text, isErr, _ = callTool(t, cs, "late")
	if isErr || text != "late: hi" {
		t.Fatalf("unlisted call = %q isError=%v, want the activated tool's answer", text, isErr)
	}
	if names := toolNames(t, cs); !slices.Equal(names, []string{"finder", "late"}) {
		t.Errorf("tools after the call = %v, want late listed", names)
	}
	select {
	case <-changed:
	case <-time.After(time.Minute):
		t.Fatal("no tools/list_changed after the activation")
	}
	// Listed now: the call takes the SDK's usual way.
	if text, isErr, _ := callTool(t, cs, "late"); isErr || text != "late: hi" {
		t.Errorf("second call = %q isError=%v", text, isErr)
	}
}

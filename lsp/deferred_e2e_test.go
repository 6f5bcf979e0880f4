package lsp_test

// A deferred MCP server's tool called by its exact name, without a
// tool_search first, in every front: executeCommand, `whale-ls call` and
// `whale-ls mcp` (standalone and attached).

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// deferredTracker is the mcp setting with one deferred server, tracker.
func deferredTracker(t *testing.T) map[string]any {
	return map[string]any{"mcp": map[string]any{"servers": map[string]any{
		"tracker": map[string]any{"command": mcptest.Server(t), "deferred": true},
	}}}
}

// TestDeferredToolByNameOverLSP: executeCommand of a deferred tool that no
// search activated (so not among the initialize commands) runs it, and the
// editor is told as after a tool_search: whale/toolsChanged and a dynamic
// registration of the command. Concurrent first calls activate it once.
func TestDeferredToolByNameOverLSP(t *testing.T) {
	yes := true
	s := start(t, writeFiles(t, nil), sessionOptions{
		initOptions: deferredTracker(t),
		capabilities: func(c *protocol.ClientCapabilities) {
			c.Workspace = &protocol.WorkspaceClientCapabilities{ExecuteCommand: &protocol.ExecuteCommandClientCapabilities{DynamicRegistration: &yes}}
		},
	})
	raw, _ := json.Marshal(s.init.Capabilities)
	if strings.Contains(string(raw), "mcp__tracker__") {
		t.Fatalf("initialize commands = %s, want no tracker tools yet", raw)
	}

	env := s.exec(ctxT(t), "mcp__tracker__search_issue", map[string]any{"query": "crash"})
	if env.Code != toolbridge.CodeUnknownTool {
		t.Errorf("misspelt deferred tool = %s %q, want unknown_tool", env.Code, env.Text)
	}
	wantText(t, env, `did you mean "mcp__tracker__search_issues"?`, "tool_search")

	// Four first calls at once; each runs, one activation is announced.
	const n = 4
	results := make([]protocol.LSPAny, n)
	errs := make([]error, n)
	ctx := ctxT(t)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = s.server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{
				Command:   "whale.mcp__tracker__search_issues",
				Arguments: []protocol.LSPAny{protocol.LSPAny(`{"query":"Crash"}`)},
			})
		}()
	}
	wg.Wait()
	for i := range n {
		var env toolbridge.Envelope
		if errs[i] != nil || json.Unmarshal(results[i], &env) != nil || env.Code != "ok" || env.Text != "issues about crash: #12 crash on start" {
			t.Errorf("concurrent first call %d = %s, %v; want the tool's answer", i, results[i], errs[i])
		}
	}
	// whale/toolsChanged goes out before the activating call's result, and
	// notifications are handled in order: all are here now.
	notes := s.ed.whaleNotes("whale/toolsChanged")
	if len(notes) != 1 || !strings.Contains(notes[0], `"name":"mcp__tracker__search_issues"`) {
		t.Errorf("whale/toolsChanged = %v, want one, adding search_issues", notes)
	}
	waitFor(t, "client/registerCapability", func() bool { return len(s.ed.registered()) == 1 })
	opts, _ := json.Marshal(s.ed.registered()[0].RegisterOptions)
	if !strings.Contains(string(opts), `"commands":["whale.mcp__tracker__search_issues"]`) {
		t.Errorf("registration = %s", opts)
	}
	if last := lastTool(t, s); last != "mcp__tracker__search_issues" {
		t.Errorf("whale/tools ends with %s, want the activated tool", last)
	}
}

// TestDeferredToolByNameWithCall: `whale-ls call` of a deferred tool's
// exact name starts the server from --config and runs the tool.
func TestDeferredToolByNameWithCall(t *testing.T) {
	root := writeFiles(t, nil)
	cfg := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(cfg, mustJSON(t, deferredTracker(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"mcp__tracker__search_issues", `{"query":"Crash"}`}, 0, "issues about crash: #12 crash on start\n"},
		{[]string{"--json", "mcp__tracker__echo", `{"text":"hi"}`}, 0, `"text":"echo: hi"`},
		{[]string{"mcp__tracker__serch_issues", `{"query":"x"}`}, 1, `unknown_tool: there is no tool named "mcp__tracker__serch_issues": the deferred MCP server tracker has no such tool; did you mean "mcp__tracker__search_issues"?`},
		{[]string{"mcp__other__echo", `{}`}, 1, `unknown_tool: there is no tool named "mcp__other__echo"`},
	} {
		cmd := exec.Command(whaleBinary(t), append([]string{"call", "--root", root, "--config", cfg}, tc.args...)...)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+state, "XDG_STATE_HOME="+state)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(string(out), tc.out) {
			t.Errorf("whale-ls call %q = exit %d, out %q; want exit %d and %q\nstderr:\n%s", tc.args, code, out, tc.code, tc.out, stderr.String())
		}
	}
}

// listChangedClient connects an MCP client to `whale-ls mcp` with args and
// counts the tools/list_changed notifications it gets.
func listChangedClient(t *testing.T, runtimeDir string, args ...string) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 16)
	cmd := exec.Command(whaleBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir, "XDG_STATE_HOME="+runtimeDir)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctxT(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to whale-ls mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

// mcpToolNames lists the tools an MCP client sees.
func mcpToolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	tools, err := cs.ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// wantListChanged waits for a tools/list_changed notification.
func wantListChanged(t *testing.T, changed <-chan struct{}, after string) {
	t.Helper()
	select {
	case <-changed:
	case <-ctxT(t).Done():
		t.Fatalf("no notifications/tools/list_changed after %s", after)
	}
}

// TestDeferredToolByNameOverMCPStandalone: a standalone `whale-ls mcp`
// serves a call of a deferred tool it does not list yet, lists it from
// then on and sends tools/list_changed; an unknown name is an Envelope
// (isError, unknown_tool), not a protocol error. tool_search's activations
// are announced the same way.
func TestDeferredToolByNameOverMCPStandalone(t *testing.T) {
	root := writeFiles(t, nil)
	cfg := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(cfg, mustJSON(t, deferredTracker(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, changed := listChangedClient(t, t.TempDir(), "--standalone", "--root", root, "--config", cfg)
	if names := mcpToolNames(t, cs); !slices.Contains(names, "tool_search") || slices.Contains(names, "mcp__tracker__search_issues") {
		t.Fatalf("tools before any call = %v, want tool_search and no tracker tools", names)
	}
	text, isErr, env := mcpCall(t, cs, "mcp__tracker__search_issue", map[string]any{"query": "crash"})
	if !isErr || env["code"] != "unknown_tool" || !strings.Contains(text, `did you mean "mcp__tracker__search_issues"?`) {
		t.Errorf("misspelt deferred tool = %q isError=%v envelope=%v; want unknown_tool with the closest name", text, isErr, env)
	}
	text, isErr, _ = mcpCall(t, cs, "mcp__tracker__search_issues", map[string]any{"query": "Crash"})
	if isErr || text != "issues about crash: #12 crash on start" {
		t.Fatalf("deferred tool by name = %q isError=%v", text, isErr)
	}
	wantListChanged(t, changed, "a deferred tool was called by name")
	// Listed before the call's result came back: no waiting needed.
	if names := mcpToolNames(t, cs); !slices.Contains(names, "mcp__tracker__search_issues") {
		t.Errorf("tools after the call = %v, want the activated tool", names)
	}

	text, isErr, _ = mcpCall(t, cs, "tool_search", map[string]any{"query": "mcp__tracker__echo"})
	if isErr || !strings.Contains(text, "mcp__tracker__echo") {
		t.Fatalf("tool_search = %q", text)
	}
	wantListChanged(t, changed, "tool_search")
	waitFor(t, "echo in tools/list", func() bool { return slices.Contains(mcpToolNames(t, cs), "mcp__tracker__echo") })
}

// TestDeferredToolByNameOverMCPAttached: attached to a language server
// with a deferred MCP server, an MCP client's call of a deferred tool by
// name runs it in the server's session, and both clients are told: the
// editor with whale/toolsChanged, the MCP client with tools/list_changed.
func TestDeferredToolByNameOverMCPAttached(t *testing.T) {
	root := writeFiles(t, nil)
	runtimeDir := t.TempDir()
	s := start(t, root, sessionOptions{runtimeDir: runtimeDir, initOptions: deferredTracker(t)})
	cs, changed := listChangedClient(t, runtimeDir, "--root", root)
	if !strings.Contains(cs.InitializeResult().Instructions, "attached") {
		t.Fatalf("instructions %q: not attached to the running server", cs.InitializeResult().Instructions)
	}
	text, isErr, _ := mcpCall(t, cs, "mcp__tracker__echo", map[string]any{"text": "via mcp"})
	if isErr || text != "echo: via mcp" {
		t.Fatalf("deferred tool by name through MCP = %q isError=%v", text, isErr)
	}
	wantListChanged(t, changed, "a deferred tool was called by name")
	if names := mcpToolNames(t, cs); !slices.Contains(names, "mcp__tracker__echo") {
		t.Errorf("MCP tools after the call = %v, want the activated tool", names)
	}
	waitFor(t, "whale/toolsChanged in the editor", func() bool { return len(s.ed.whaleNotes("whale/toolsChanged")) == 1 })
	// The editor's session now has the tool too.
	wantText(t, s.exec(ctxT(t), "mcp__tracker__echo", map[string]any{"text": "via lsp"}), "echo: via lsp")
}

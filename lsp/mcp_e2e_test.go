package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/whale-ls/whale-ls/mcphost/mcptest"
)

// mcpClient starts `whale-ls mcp` with args and connects an MCP client
// from the official SDK to it over stdio.
func mcpClient(t *testing.T, root, runtimeDir string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(whaleBinary(t), append([]string{"mcp", "--root", root}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, nil)
	cs, err := client.Connect(ctxT(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to whale-ls mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var structured map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &structured)
	if structured == nil {
		// No Envelope unless --structured: the code travels in _meta.
		structured = map[string]any{"code": res.Meta["whale/code"]}
	}
	return text.String(), res.IsError, structured
}

func TestMCPStandalone(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "alpha\nbeta\n"})
	cs := mcpClient(t, root, t.TempDir())
	if !strings.Contains(cs.InitializeResult().Instructions, "standalone") {
		t.Errorf("instructions %q do not say the server is standalone", cs.InitializeResult().Instructions)
	}
	names := mcpToolNames(t, cs)
	for _, want := range []string{"read_file", "edit", "grep", "shell_run"} {
		if !slices.Contains(names, want) {
			t.Errorf("MCP tools %v lack %s", names, want)
		}
	}
	text, isErr, env := mcpCall(t, cs, "read_file", map[string]any{"file_path": "a.txt"})
	if isErr || !strings.Contains(text, "2\tbeta") || env["code"] != "ok" {
		t.Errorf("read_file = %q isError=%v envelope=%v", text, isErr, env)
	}
	text, isErr, _ = mcpCall(t, cs, "edit", map[string]any{"file_path": "a.txt", "search": "beta", "replace": "gamma"})
	if isErr {
		t.Fatalf("edit = %q", text)
	}
	if b, _ := os.ReadFile(root + "/a.txt"); string(b) != "alpha\ngamma\n" {
		t.Errorf("standalone edit left %q on disk", b)
	}
	text, isErr, env = mcpCall(t, cs, "read_file", map[string]any{"file_path": "nope.txt"})
	if !isErr || env["code"] != "not_found" || !strings.HasPrefix(text, "not_found: ") {
		t.Errorf("failing call = %q isError=%v envelope=%v; want isError and not_found", text, isErr, env)
	}
}

// TestMCPAttachedEditLandsInTheEditor: with a language server running
// under the fake editor, an edit called through MCP reaches the editor as
// workspace/applyEdit at the buffer's version.
func TestMCPAttachedEditLandsInTheEditor(t *testing.T) {
	attachedEditLandsInTheEditor(t, func(t *testing.T, root, runtimeDir string) *mcp.ClientSession {
		return mcpClient(t, root, runtimeDir)
	})
}

// attachedEditLandsInTheEditor checks an MCP client that connect makes to
// `whale-ls mcp` (over stdio or HTTP).
func attachedEditLandsInTheEditor(t *testing.T, connect func(t *testing.T, root, runtimeDir string) *mcp.ClientSession) {
	root := writeFiles(t, map[string]string{"a.go": "package a // disk\n"})
	runtimeDir := t.TempDir()
	s := start(t, root, sessionOptions{runtimeDir: runtimeDir})
	u := s.open("a.go", "package a\n\nvar x = 1 // unsaved\n", 5)
	cs := connect(t, root, runtimeDir)
	if !strings.Contains(cs.InitializeResult().Instructions, "attached") {
		t.Fatalf("instructions %q: not attached to the running server", cs.InitializeResult().Instructions)
	}
	text, isErr, _ := mcpCall(t, cs, "edit", map[string]any{"file_path": "a.go", "search": "var x = 1", "replace": "var x = 2"})
	if isErr {
		t.Fatalf("edit through MCP = %q", text)
	}
	if got, v := s.ed.text(u); got != "package a\n\nvar x = 2 // unsaved\n" || v != 6 {
		t.Fatalf("editor buffer = %q version %d, want the edit applied at version 5", got, v)
	}
	s.ed.mu.Lock()
	applied := string(s.ed.applied[0])
	s.ed.mu.Unlock()
	if !strings.Contains(applied, `"version":5`) {
		t.Errorf("applyEdit %s is not pinned to version 5", applied)
	}
	if b, _ := os.ReadFile(s.path("a.go")); string(b) != "package a // disk\n" {
		t.Errorf("disk changed to %q; the edit belongs in the buffer", b)
	}
}

// TestMCPListChangedAfterToolSearch: attached to a server with a deferred
// MCP server, an MCP client's tool_search activates a tool; the client gets
// notifications/tools/list_changed and then lists and calls the new tool.
func TestMCPListChangedAfterToolSearch(t *testing.T) {
	bin := mcptest.Server(t)
	root := writeFiles(t, nil)
	runtimeDir := t.TempDir()
	start(t, root, sessionOptions{runtimeDir: runtimeDir, initOptions: map[string]any{"mcp": map[string]any{"servers": map[string]any{
		"tracker": map[string]any{"command": bin, "deferred": true},
	}}}})
	changed := make(chan struct{}, 4)
	cmd := exec.Command(whaleBinary(t), "mcp", "--root", root)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctxT(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, isErr, _ := mcpCall(t, cs, "tool_search", map[string]any{"query": "search issues", "max_results": 1})
	if isErr || !strings.Contains(text, "mcp__tracker__search_issues") {
		t.Fatalf("tool_search through MCP = %q", text)
	}
	select {
	case <-changed:
	case <-ctxT(t).Done():
		t.Fatal("no notifications/tools/list_changed after tool_search")
	}
	waitFor(t, "the activated tool in tools/list", func() bool {
		tools, err := cs.ListTools(ctxT(t), nil)
		if err != nil {
			return false
		}
		for _, tool := range tools.Tools {
			if tool.Name == "mcp__tracker__search_issues" {
				return true
			}
		}
		return false
	})
	if text, isErr, _ := mcpCall(t, cs, "mcp__tracker__search_issues", map[string]any{"query": "crash"}); isErr || !strings.Contains(text, "issues about crash") {
		t.Errorf("calling the activated tool through MCP = %q", text)
	}
}

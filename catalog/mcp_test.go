package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// mcpCatalog builds a registry over the MCP group for settings.
func mcpCatalog(t *testing.T, servers string) (*testDeps, *toolbridge.Registry) {
	t.Helper()
	ws, err := workspace.NewSet([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	s, _, err := settings.Parse([]byte(`{"mcp":{"servers":` + servers + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := toolbridge.NewRegistry(nil)
	d := &testDeps{Workspace: ws, Registry: r}
	d.SetSettings(s)
	t.Cleanup(d.Close)
	if err := r.Register(mcpTools(d)...); err != nil {
		t.Fatal(err)
	}
	return d, r
}

func TestMCPToolsJoinTheCatalog(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"calc": {"command": %q}}`, bin))
	names := strings.Join(r.Names(), ",")
	if !strings.Contains(names, "mcp__calc__add") || !strings.Contains(names, "mcp__calc__echo") || strings.Contains(names, "tool_search") {
		t.Fatalf("catalog = %s, want the calc tools and no tool_search (no deferred server)", names)
	}
	for _, s := range r.Specs() {
		if s.Name == "mcp__calc__echo" && (!s.ReadOnly || s.Group != toolbridge.GroupMCP || s.InputSchema.Properties["text"] == nil) {
			t.Errorf("spec = %+v, want read-only, group mcp, with the text property", s)
		}
	}
	env := call(t, r, "mcp__calc__add", map[string]any{"a": 2, "b": 40})
	if env.Code != toolbridge.CodeOK || env.Text != "42" {
		t.Errorf("mcp__calc__add = %s %q, want 42", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__add", map[string]any{"a": "two", "b": 1})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "a must be a number") {
		t.Errorf("bad argument = %s %q, want invalid_input from the schema", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__fail", map[string]any{})
	if env.OK || !strings.Contains(env.Text, "the database is locked") || !strings.Contains(env.Text, "not a whale-ls fault") {
		t.Errorf("failing tool = %s %q", env.Code, env.Text)
	}
}

// TestMCPServerCrashIsRestartedOnce: a crash restarts the server; a second
// crash leaves it unavailable.
func TestMCPServerCrashIsRestartedOnce(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"calc": {"command": %q}}`, bin))
	env := call(t, r, "mcp__calc__crash", map[string]any{})
	if env.Code != toolbridge.CodeNetworkError || !strings.Contains(env.Text, "was restarted") {
		t.Fatalf("first crash = %s %q", env.Code, env.Text)
	}
	if env := call(t, r, "mcp__calc__add", map[string]any{"a": 1, "b": 1}); env.Text != "2" {
		t.Fatalf("after a restart = %s %q, want 2", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__crash", map[string]any{})
	if env.Code != toolbridge.CodeNetworkError || !strings.Contains(env.Text, "unavailable") {
		t.Fatalf("second crash = %s %q", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__add", map[string]any{"a": 1, "b": 1})
	if env.Code != toolbridge.CodeNetworkError || !strings.Contains(env.Text, "unavailable for this session") {
		t.Fatalf("after the second crash = %s %q", env.Code, env.Text)
	}
}

func TestMCPSettings(t *testing.T) {
	for _, tc := range []struct{ raw, err string }{
		{`{"a": {"command": "x", "deferred": true, "args": ["1"], "env": {"K": "v"}}}`, ""},
		{`{"a": {"args": ["1"]}}`, "has no command"},
		{`{"a b": {"command": "x"}}`, "may use only letters"},
		{`{"a": {"command": "x", "lazy": true}}`, "unknown field"},
		{`["x"]`, "must map server names"},
	} {
		_, err := parseMCPServers([]byte(tc.raw))
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("parseMCPServers(%s) = %v, want %q", tc.raw, err, tc.err)
		}
	}
}

func (a *addedNames) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return fmt.Sprint(a.calls)
}

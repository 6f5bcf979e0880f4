package toolbridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/workspace"
)

// mcpCatalog builds a registry over the MCP group for settings.
func mcpCatalog(t *testing.T, servers string) (*Deps, *Registry) {
	t.Helper()
	ws, err := workspace.NewSet([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	s, _, err := ParseSettings([]byte(`{"mcp":{"servers":` + servers + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := &Deps{Workspace: ws}
	d.SetSettings(s)
	t.Cleanup(d.Close)
	r, err := NewRegistry(nil, mcpTools(d))
	if err != nil {
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
		if s.Name == "mcp__calc__echo" && (!s.ReadOnly || s.Group != GroupMCP || s.InputSchema.Properties["text"] == nil) {
			t.Errorf("spec = %+v, want read-only, group mcp, with the text property", s)
		}
	}
	env := call(t, r, "mcp__calc__add", map[string]any{"a": 2, "b": 40})
	if env.Code != CodeOK || env.Text != "42" {
		t.Errorf("mcp__calc__add = %s %q, want 42", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__add", map[string]any{"a": "two", "b": 1})
	if env.Code != CodeInvalidInput || !strings.Contains(env.Text, "a must be a number") {
		t.Errorf("bad argument = %s %q, want invalid_input from the schema", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__fail", map[string]any{})
	if env.OK || !strings.Contains(env.Text, "the database is locked") || !strings.Contains(env.Text, "not a whale-ls fault") {
		t.Errorf("failing tool = %s %q", env.Code, env.Text)
	}
}

func TestToolSearchActivatesDeferredTools(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"tracker": {"command": %q, "deferred": true}}`, bin))
	if got := strings.Join(r.Names(), ","); got != "tool_search" {
		t.Fatalf("catalog before a search = %s, want only tool_search", got)
	}
	var told [][]string
	r.OnToolsAdded(func(added []Spec) {
		var names []string
		for _, s := range added {
			names = append(names, s.Name)
		}
		told = append(told, names)
	})
	if env := call(t, r, "mcp__tracker__search_issues", map[string]any{"query": "x"}); env.Code != CodeUnknownTool {
		t.Fatalf("deferred tool before the search = %s, want unknown_tool", env.Code)
	}
	env := call(t, r, "tool_search", map[string]any{"query": "find bug reports in the issue tracker", "max_results": 1})
	if env.Code != CodeOK || !strings.Contains(env.Text, "mcp__tracker__search_issues") || !strings.Contains(env.Text, `"query"`) || !strings.Contains(env.Text, "now active") {
		t.Fatalf("tool_search = %s %q", env.Code, env.Text)
	}
	if len(told) != 1 || strings.Join(told[0], ",") != "mcp__tracker__search_issues" {
		t.Errorf("listener told %v, want the one activated tool", told)
	}
	env = call(t, r, "mcp__tracker__search_issues", map[string]any{"query": "Crash"})
	if env.Code != CodeOK || env.Text != "issues about crash: #12 crash on start" {
		t.Errorf("activated tool = %s %q", env.Code, env.Text)
	}
	// Exact names activate too; a second activation of the same tool is
	// not announced again.
	env = call(t, r, "tool_search", map[string]any{"query": "echo, mcp__tracker__search_issues"})
	if env.Code != CodeOK || !strings.Contains(env.Text, "mcp__tracker__echo") {
		t.Errorf("tool_search by names = %q", env.Text)
	}
	if len(told) != 2 || strings.Join(told[1], ",") != "mcp__tracker__echo" {
		t.Errorf("listener told %v, want only the newly activated echo", told)
	}
	env = call(t, r, "tool_search", map[string]any{"query": "weather forecast"})
	if env.Code != CodeOK || !strings.Contains(env.Text, "No deferred tool matches") || !strings.Contains(env.Text, "mcp__tracker__crash") {
		t.Errorf("tool_search without hits = %q, want the deferred names listed", env.Text)
	}
}

// TestMCPServerCrashIsRestartedOnce: a crash restarts the server; a second
// crash leaves it unavailable.
func TestMCPServerCrashIsRestartedOnce(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"calc": {"command": %q}}`, bin))
	env := call(t, r, "mcp__calc__crash", map[string]any{})
	if env.Code != CodeNetworkError || !strings.Contains(env.Text, "was restarted") {
		t.Fatalf("first crash = %s %q", env.Code, env.Text)
	}
	if env := call(t, r, "mcp__calc__add", map[string]any{"a": 1, "b": 1}); env.Text != "2" {
		t.Fatalf("after a restart = %s %q, want 2", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__crash", map[string]any{})
	if env.Code != CodeNetworkError || !strings.Contains(env.Text, "unavailable") {
		t.Fatalf("second crash = %s %q", env.Code, env.Text)
	}
	env = call(t, r, "mcp__calc__add", map[string]any{"a": 1, "b": 1})
	if env.Code != CodeNetworkError || !strings.Contains(env.Text, "unavailable for this session") {
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
	s := mcpSchema([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},"meta":{"type":"object"},"any":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["n"]}`))
	if s.Type != "object" || !*s.AdditionalProperties || *s.Properties["n"].Minimum != 1 || s.Properties["tags"].Items.Enum[1] != "b" ||
		!*s.Properties["meta"].AdditionalProperties || s.Properties["any"].Type != "" || s.Required[0] != "n" {
		t.Errorf("mcpSchema = %+v", s)
	}
	if problems := validate(s, map[string]any{"n": json.Number("2"), "meta": map[string]any{"x": 1}, "any": nil, "extra": true}, ""); len(problems) > 0 {
		t.Errorf("validation stricter than the server's schema: %v", problems)
	}
}

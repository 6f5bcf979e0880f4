package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestToolSearchActivatesDeferredTools(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"tracker": {"command": %q, "deferred": true}}`, bin))
	if got := strings.Join(r.Names(), ","); got != "tool_search" {
		t.Fatalf("catalog before a search = %s, want only tool_search", got)
	}
	var told [][]string
	r.OnToolsAdded(func(added []toolbridge.Spec) {
		var names []string
		for _, s := range added {
			names = append(names, s.Name)
		}
		told = append(told, names)
	})
	if env := call(t, r, "mcp__tracker__search_issue", map[string]any{"query": "x"}); env.Code != toolbridge.CodeUnknownTool || len(told) != 0 {
		t.Fatalf("misspelt deferred tool = %s, told %v; want unknown_tool and nothing activated", env.Code, told)
	}
	env := call(t, r, "tool_search", map[string]any{"query": "find bug reports in the issue tracker", "max_results": 1})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "mcp__tracker__search_issues") || !strings.Contains(env.Text, `"query"`) || !strings.Contains(env.Text, "now active") {
		t.Fatalf("tool_search = %s %q", env.Code, env.Text)
	}
	if len(told) != 1 || strings.Join(told[0], ",") != "mcp__tracker__search_issues" {
		t.Errorf("listener told %v, want the one activated tool", told)
	}
	env = call(t, r, "mcp__tracker__search_issues", map[string]any{"query": "Crash"})
	if env.Code != toolbridge.CodeOK || env.Text != "issues about crash: #12 crash on start" {
		t.Errorf("activated tool = %s %q", env.Code, env.Text)
	}
	// Exact names activate too; a second activation of the same tool is
	// not announced again.
	env = call(t, r, "tool_search", map[string]any{"query": "echo, mcp__tracker__search_issues"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "mcp__tracker__echo") {
		t.Errorf("tool_search by names = %q", env.Text)
	}
	if len(told) != 2 || strings.Join(told[1], ",") != "mcp__tracker__echo" {
		t.Errorf("listener told %v, want only the newly activated echo", told)
	}
	// Nothing serves these: "no match", the deferred servers, their
	// tools, and nothing activated — also when a word ("issues", "to")
	// appears in some tool's description.
	for _, q := range []string{"weather forecast", "send an email to my boss about the open issues"} {
		before := len(r.Names())
		env = call(t, r, "tool_search", map[string]any{"query": q})
		if env.Code != toolbridge.CodeOK || !strings.HasPrefix(env.Text, "No match: ") || !strings.Contains(env.Text, "The deferred MCP servers are: tracker.") || !strings.Contains(env.Text, "mcp__tracker__crash") {
			t.Errorf("tool_search(%q) = %q, want no match, the deferred servers and their tools", q, env.Text)
		}
		if after := len(r.Names()); after != before {
			t.Errorf("tool_search(%q) without a match activated %d tools", q, after-before)
		}
	}
}

// addedNames records the names a registry's listeners are told about.
type addedNames struct {
	mu    sync.Mutex
	calls [][]string
}

func (a *addedNames) listen(r *toolbridge.Registry) {
	r.OnToolsAdded(func(added []toolbridge.Spec) {
		var names []string
		for _, s := range added {
			names = append(names, s.Name)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		a.calls = append(a.calls, names)
	})
}

// TestDeferredToolCalledByExactName: a call by a deferred tool's exact
// name starts its server, activates the tool as tool_search would (the
// listeners are told, the spec joins the catalog and stays as it is) and
// runs it.
func TestDeferredToolCalledByExactName(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"tracker": {"command": %q, "deferred": true}}`, bin))
	var told addedNames
	told.listen(r)
	env := call(t, r, "mcp__tracker__search_issues", map[string]any{"query": "Crash"})
	if env.Code != toolbridge.CodeOK || env.Text != "issues about crash: #12 crash on start" {
		t.Fatalf("first call of a deferred tool = %s %q, want it run", env.Code, env.Text)
	}
	if got := told.String(); got != "[[mcp__tracker__search_issues]]" {
		t.Errorf("listeners told %s, want the one activated tool", got)
	}
	if got := strings.Join(r.Names(), ","); got != "tool_search,mcp__tracker__search_issues" {
		t.Errorf("catalog after the call = %s", got)
	}
	before := r.Specs()[1]
	if !strings.Contains(before.Description, `MCP tool "search_issues" of the server "tracker"`) || before.Group != toolbridge.GroupMCP || before.InputSchema.Properties["query"] == nil {
		t.Errorf("activated spec = %+v, want the one tool_search would show", before)
	}
	// The schema was applied: the call is validated like any other.
	env = call(t, r, "mcp__tracker__search_issues", map[string]any{"limit": 2})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "query") {
		t.Errorf("call without the required query = %s %q, want invalid_input", env.Code, env.Text)
	}
	// A later search finds the tool again without a second activation.
	env = call(t, r, "tool_search", map[string]any{"query": "mcp__tracker__search_issues"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "mcp__tracker__search_issues") {
		t.Fatalf("tool_search = %s %q", env.Code, env.Text)
	}
	if got := told.String(); got != "[[mcp__tracker__search_issues]]" {
		t.Errorf("listeners told %s after the search, want no second activation", got)
	}
	if diff := cmp.Diff(before, r.Specs()[1]); diff != "" {
		t.Errorf("spec changed after the search (-before +after):\n%s", diff)
	}
}

// TestDeferredToolConcurrentFirstCalls: calls that reach a deferred tool at
// the same moment all run it; it is activated (and announced) once.
func TestDeferredToolConcurrentFirstCalls(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"tracker": {"command": %q, "deferred": true}}`, bin))
	var told addedNames
	told.listen(r)
	const n = 8
	envs := make([]toolbridge.Envelope, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			input, _ := json.Marshal(map[string]any{"text": fmt.Sprint(i)})
			envs[i] = r.Dispatch(context.Background(), toolbridge.Call{Name: "mcp__tracker__echo", Input: input})
		}()
	}
	close(start)
	wg.Wait()
	for i, env := range envs {
		if env.Code != toolbridge.CodeOK || env.Text != fmt.Sprintf("echo: %d", i) {
			t.Errorf("call %d = %s %q, want echo: %d", i, env.Code, env.Text, i)
		}
	}
	if got := told.String(); got != "[[mcp__tracker__echo]]" {
		t.Errorf("listeners told %s, want one activation", got)
	}
	if got := strings.Join(r.Names(), ","); got != "tool_search,mcp__tracker__echo" {
		t.Errorf("catalog = %s, want the tool once", got)
	}
}

// TestDeferredToolUnknownNames: a known deferred server without the tool
// names its closest tools and tool_search; an unknown server gets the
// usual answer; neither activates anything.
func TestDeferredToolUnknownNames(t *testing.T) {
	bin := mcptest.Server(t)
	_, r := mcpCatalog(t, fmt.Sprintf(`{"tracker": {"command": %q, "deferred": true}, "broken": {"command": %q, "deferred": true}}`, bin, bin+"-missing"))
	var told addedNames
	told.listen(r)
	for _, tc := range []struct {
		name, code string
		want       []string
		unwanted   string
	}{
		{"mcp__tracker__search_issue", toolbridge.CodeUnknownTool, []string{`did you mean "mcp__tracker__search_issues"?`, "deferred MCP server tracker", "use tool_search"}, "mcp__tracker__crash"},
		{"mcp__tracker__zzzzzzzzzzzzzzzzzz", toolbridge.CodeUnknownTool, []string{"its tools are mcp__tracker__add, mcp__tracker__crash, mcp__tracker__echo", "use tool_search"}, "did you mean"},
		{"mcp__tracker__", toolbridge.CodeUnknownTool, []string{"deferred MCP server tracker has no such tool", "use tool_search"}, ""},
		{"mcp__nosuch__echo", toolbridge.CodeUnknownTool, []string{`there is no tool named "mcp__nosuch__echo"`, "the tools are: tool_search"}, "deferred MCP server"},
		{"mcp__broken__echo", toolbridge.CodeNetworkError, []string{"deferred MCP server broken, which is not available", "tell the user"}, ""},
	} {
		env := call(t, r, tc.name, map[string]any{})
		if env.Code != tc.code || env.OK {
			t.Errorf("Dispatch(%q) = %s %q, want %s", tc.name, env.Code, env.Text, tc.code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(env.Text, w) {
				t.Errorf("Dispatch(%q) text = %q, want it to contain %q", tc.name, env.Text, w)
			}
		}
		if tc.unwanted != "" && strings.Contains(env.Text, tc.unwanted) {
			t.Errorf("Dispatch(%q) text = %q, want no %q", tc.name, env.Text, tc.unwanted)
		}
	}
	if got := told.String(); got != "[]" || !slices.Equal(r.Names(), []string{"tool_search"}) {
		t.Errorf("after unknown names: told %s, catalog %v; want nothing activated", got, r.Names())
	}
}

package lsp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"go.lsp.dev/protocol"
)

// registrations records client/registerCapability requests per editor.
var registrations = struct {
	mu  sync.Mutex
	got map[*fakeEditor][]protocol.Registration
}{got: map[*fakeEditor][]protocol.Registration{}}

func (e *fakeEditor) RegisterCapability(_ context.Context, p *protocol.RegistrationParams) error {
	registrations.mu.Lock()
	defer registrations.mu.Unlock()
	registrations.got[e] = append(registrations.got[e], p.Registrations...)
	return nil
}

func (e *fakeEditor) registered() []protocol.Registration {
	registrations.mu.Lock()
	defer registrations.mu.Unlock()
	return append([]protocol.Registration(nil), registrations.got[e]...)
}

// TestToolSearchOverLSP: a deferred MCP server's tool is found with
// tool_search, announced with whale/toolsChanged and a dynamic
// registration of its command, listed by whale/tools, and callable.
func TestToolSearchOverLSP(t *testing.T) {
	bin := mcptest.Server(t)
	yes := true
	s := start(t, writeFiles(t, nil), sessionOptions{
		initOptions: map[string]any{"mcp": map[string]any{"servers": map[string]any{
			"tracker": map[string]any{"command": bin, "deferred": true},
			"calc":    map[string]any{"command": bin},
		}}},
		capabilities: func(c *protocol.ClientCapabilities) {
			c.Workspace = &protocol.WorkspaceClientCapabilities{ExecuteCommand: &protocol.ExecuteCommandClientCapabilities{DynamicRegistration: &yes}}
		},
	})
	raw, _ := json.Marshal(s.init.Capabilities)
	if !strings.Contains(string(raw), `"whale.tool_search"`) || !strings.Contains(string(raw), `"whale.mcp__calc__add"`) || strings.Contains(string(raw), "mcp__tracker__") {
		t.Fatalf("initialize commands = %s, want tool_search and the calc tools, no tracker tools", raw)
	}
	wantText(t, s.exec(ctxT(t), "mcp__calc__add", map[string]any{"a": 20, "b": 22}), "42")

	env := s.exec(ctxT(t), "tool_search", map[string]any{"query": "search issues", "max_results": 1})
	wantText(t, env, "mcp__tracker__search_issues", "now active")
	waitFor(t, "whale/toolsChanged", func() bool { return len(s.ed.whaleNotes("whale/toolsChanged")) == 1 })
	var changed struct {
		Added []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Group       string          `json:"group"`
		} `json:"added"`
	}
	json.Unmarshal([]byte(s.ed.whaleNotes("whale/toolsChanged")[0]), &changed)
	if len(changed.Added) != 1 || changed.Added[0].Name != "mcp__tracker__search_issues" || changed.Added[0].Group != "mcp" || !strings.Contains(string(changed.Added[0].InputSchema), `"query"`) {
		t.Errorf("whale/toolsChanged = %s", s.ed.whaleNotes("whale/toolsChanged")[0])
	}
	waitFor(t, "client/registerCapability", func() bool { return len(s.ed.registered()) == 1 })
	reg := s.ed.registered()[0]
	opts, _ := json.Marshal(reg.RegisterOptions)
	if reg.Method != "workspace/executeCommand" || !strings.Contains(string(opts), `"commands":["whale.mcp__tracker__search_issues"]`) {
		t.Errorf("registration = %+v %s", reg, opts)
	}

	if last := lastTool(t, s); last != "mcp__tracker__search_issues" {
		t.Errorf("whale/tools ends with %s, want the activated tool", last)
	}
	wantText(t, s.exec(ctxT(t), "mcp__tracker__search_issues", map[string]any{"query": "crash"}), "issues about crash")
}

// TestToolSearchWithoutDeferredServers: no deferred server, no tool_search.
func TestToolSearchWithoutDeferredServers(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	env := s.exec(ctxT(t), "tool_search", map[string]any{"query": "x"})
	if env.Code != "unknown_tool" {
		t.Errorf("tool_search without deferred servers = %s %q, want unknown_tool", env.Code, env.Text)
	}
}

// lastTool is the name of the last tool whale/tools lists: the one most
// recently added.
func lastTool(t *testing.T, s *session) string {
	t.Helper()
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/tools", nil, &list); err != nil || len(list.Tools) == 0 {
		t.Fatalf("whale/tools = %+v, %v", list, err)
	}
	return list.Tools[len(list.Tools)-1].Name
}

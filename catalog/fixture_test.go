package catalog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// testWorkspace builds a workspace in a temp folder holding files (slash
// paths → content), Deps over it, and a registry with the given tool
// groups. It returns the Deps, the registry and the root's real path.
func testWorkspace(t *testing.T, files map[string]string, groups ...func(*Deps) []toolbridge.Tool) (*Deps, *toolbridge.Registry, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.NewSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	d := &Deps{Workspace: ws, Reads: &ReadLedger{}}
	d.SetSettings(settings.Settings{})
	var tools []toolbridge.Tool
	for _, g := range groups {
		tools = append(tools, g(d)...)
	}
	r, err := toolbridge.NewRegistry(nil, tools)
	if err != nil {
		t.Fatal(err)
	}
	return d, r, root
}

// call dispatches one call with input marshaled to JSON.
func call(t *testing.T, r *toolbridge.Registry, name string, input any) toolbridge.Envelope {
	t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return r.Dispatch(context.Background(), toolbridge.Call{Name: name, Input: b})
}

func TestMain(m *testing.M) {
	code := m.Run()
	mcptest.Cleanup() // the test MCP server, if a test built it
	os.Exit(code)
}

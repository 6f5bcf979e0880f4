package session

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// TestNewBuildsTheCatalogAndCloseEndsIt: a session registers the whole
// catalog plus the extra tools, dispatches calls, runs what registered to
// stop at close the last first, once, and then starts no more tasks.
func TestNewBuildsTheCatalogAndCloseEndsIt(t *testing.T) {
	var order []int
	extra := func(env catalog.Env) []toolbridge.Tool {
		env.OnClose(func() { order = append(order, 1) })
		env.OnClose(func() { order = append(order, 2) })
		return []toolbridge.Tool{toolbridge.Define(toolbridge.Spec{Name: "extra", InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{})},
			func(context.Context, struct{}) (toolbridge.Result, error) {
				return toolbridge.Result{Text: "extra ran"}, nil
			})}
	}
	s, err := New(Options{Roots: []string{t.TempDir()}, ExtraTools: extra})
	if err != nil {
		t.Fatal(err)
	}
	names := s.Registry.Names()
	for _, want := range []string{"read_file", "edit", "shell_run", "todo_add", "extra"} {
		if !slices.Contains(names, want) {
			t.Errorf("session tools lack %s: %v", want, names)
		}
	}
	if env := s.Registry.Dispatch(context.Background(), toolbridge.Call{Name: "extra", Input: json.RawMessage(`{}`)}); env.Text != "extra ran" {
		t.Errorf("Dispatch(extra) = %+v", env)
	}
	s.Close()
	s.Close()
	if !slices.Equal(order, []int{2, 1}) {
		t.Errorf("close order = %v, want [2 1] once", order)
	}
	env := s.Registry.Dispatch(context.Background(), toolbridge.Call{Name: "shell_run", Input: json.RawMessage(`{"command":"true"}`)})
	if env.OK {
		t.Errorf("shell_run after Close = %+v, want a refusal", env)
	}
}

// TestApplyReportsMissingFolders: Apply keeps the settings and names the
// approved paths that do not exist.
func TestApplyReportsMissingFolders(t *testing.T) {
	s, err := New(Options{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var cfg settings.Settings
	cfg.Read.ApprovedPaths = []string{"/no/such/folder"}
	cfg.Shell.Program = "/bin/sh"
	if missing := s.Apply(cfg); !slices.Equal(missing, []string{"/no/such/folder"}) {
		t.Errorf("Apply missing = %v, want the approved path", missing)
	}
	if got := s.Settings().Shell.Program; got != "/bin/sh" {
		t.Errorf("Settings().Shell.Program = %q after Apply", got)
	}
}

// TestNewFailsWithoutARoot: a session without a workspace folder is an
// error, and nothing is left running.
func TestNewFailsWithoutARoot(t *testing.T) {
	if s, err := New(Options{Roots: []string{t.TempDir() + "/missing"}}); err == nil {
		s.Close()
		t.Fatal("New with a missing root succeeded")
	}
}

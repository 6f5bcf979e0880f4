package catalog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/whale-ls/whale-ls/internal/testtree"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/todos"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// testDeps is what the tests build tools from: a session's Env, the
// settings, the commit hook and what the session would close.
type testDeps struct {
	Workspace *workspace.Set
	Editor    toolbridge.Editor
	Prompter  toolbridge.Prompter
	Notifier  toolbridge.Notifier
	Reads     *ReadLedger
	Terminals *terminal.Table
	ExecGate  *execboundary.Gate
	Registry  *toolbridge.Registry
	Journal   *changes.Journal
	language  toolbridge.Language // nil: the editor offers none

	cfg          settings.Settings
	beforeCommit func() // runs as Committer.beforeCommit
	closers      []func()
}

// SetSettings sets the settings as a session's Apply does: the shell
// tasks' part on the table at once.
func (d *testDeps) SetSettings(s settings.Settings) {
	d.cfg = s
	if d.Terminals != nil {
		d.Terminals.SetSettings(s.TerminalSettings())
	}
}
func (d *testDeps) settings() settings.Settings { return d.cfg }
func (d *testDeps) OnClose(fn func())           { d.closers = append(d.closers, fn) }

// Close runs the OnClose functions, the last first.
func (d *testDeps) Close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
	d.closers = nil
}

func (d *testDeps) env() Env {
	return Env{Workspace: d.Workspace, Editor: d.Editor, Prompter: d.Prompter, Notifier: d.Notifier, Reads: d.Reads,
		Terminals: d.Terminals, Gate: d.ExecGate, Settings: d.settings, Registry: d.Registry, Journal: d.Journal, OnClose: d.OnClose, Language: d.lang()}
}

func (d *testDeps) lang() toolbridge.Language { return d.language }

// all is the whole catalog over d, as a session builds it.
func (d *testDeps) all() []toolbridge.Tool { return All(d.env()) }

// The tool groups tests register (the catalog's order within each).
func fileTools(d *testDeps) []toolbridge.Tool {
	return []toolbridge.Tool{ReadFile(d.Workspace, d.Editor, d.Reads), ListDir(d.Workspace), LoadSkill(d.Workspace, d.settings)}
}

func searchTools(d *testDeps) []toolbridge.Tool {
	return []toolbridge.Tool{Grep(d.Workspace, d.Editor, nil), SearchFiles(d.Workspace, d.Editor, nil)}
}

func webTools(d *testDeps) []toolbridge.Tool {
	return []toolbridge.Tool{WebSearch(d.settings), Fetch(d.settings), WebFetch(d.settings)}
}

func inputTools(d *testDeps) []toolbridge.Tool {
	return []toolbridge.Tool{RequestUserInput(d.Prompter)}
}

func editTools(d *testDeps) []toolbridge.Tool {
	c := NewCommitter(CommitOptions{Workspace: d.Workspace, Editor: d.Editor, Reads: d.Reads, Settings: d.settings, Journal: d.Journal, Prompter: d.Prompter})
	c.beforeCommit = func() {
		if d.beforeCommit != nil {
			d.beforeCommit()
		}
	}
	return []toolbridge.Tool{Edit(c), MultiEdit(c), Write(c), ApplyPatch(c), ChangesList(d.Journal), ChangesRevert(c)}
}

func shellTools(d *testDeps) []toolbridge.Tool {
	sh := Shell{Terminals: d.Terminals, Workspace: d.Workspace, Gate: d.ExecGate, Settings: d.settings, Journal: d.Journal}
	return []toolbridge.Tool{ShellRun(sh), ShellWait(d.Terminals), WriteStdin(d.Terminals), ShellCancel(d.Terminals)}
}

func planTools(d *testDeps) []toolbridge.Tool { return []toolbridge.Tool{UpdatePlan(d.Notifier)} }

func todoTools(d *testDeps) []toolbridge.Tool {
	st := todos.NewStore(realRoots(d.Workspace), nil)
	return []toolbridge.Tool{TodoAdd(st, d.Notifier), TodoList(st, d.Notifier), TodoUpdate(st, d.Notifier), TodoRemove(st, d.Notifier)}
}

func mcpTools(d *testDeps) []toolbridge.Tool {
	return MCPTools(MCPOptions{Workspace: d.Workspace, Settings: d.settings, Registry: d.Registry, OnClose: d.OnClose})
}

// withJournal gives d a journal of changes in a temp folder, for the
// workspace at root.
func withJournal(t *testing.T, d *testDeps, root string) {
	t.Helper()
	j, err := changes.Open(t.TempDir(), changes.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	d.Journal = j
}

// testWorkspace builds a workspace in a temp folder holding files (slash
// paths → content), testDeps over it, and a registry with the given tool
// groups. It returns the testDeps, the registry and the root's real path.
func testWorkspace(t *testing.T, files map[string]string, groups ...func(*testDeps) []toolbridge.Tool) (*testDeps, *toolbridge.Registry, string) {
	return testWorkspaceWith(t, files, nil, groups...)
}

// testWorkspaceWith is testWorkspace with setup run on the testDeps (for
// example to attach an editor) before the tools are built.
func testWorkspaceWith(t *testing.T, files map[string]string, setup func(d *testDeps, root string), groups ...func(*testDeps) []toolbridge.Tool) (*testDeps, *toolbridge.Registry, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, files)
	ws, err := workspace.NewSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	r := toolbridge.NewRegistry(nil)
	d := &testDeps{Workspace: ws, Reads: &ReadLedger{}, Registry: r}
	if setup != nil {
		setup(d, root)
	}
	var tools []toolbridge.Tool
	for _, g := range groups {
		tools = append(tools, g(d)...)
	}
	if err := r.Register(tools...); err != nil {
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
	// The test binary is also the exec gate's helper, with the sandbox.
	if len(os.Args) > 1 && os.Args[1] == execboundary.HelperCommand {
		os.Exit(execboundary.RunHelper(os.Args[2:], sandbox.Apply))
	}
	code := m.Run()
	mcptest.Cleanup() // the test MCP server, if a test built it
	os.Exit(code)
}

// recordingNotifier keeps every notification as "Method params-as-JSON".
type recordingNotifier struct {
	mu   sync.Mutex
	sent []string
}

func (n *recordingNotifier) PlanChanged(p toolbridge.Plan) { n.record("PlanChanged", p) }

func (n *recordingNotifier) TodosChanged(items []toolbridge.TodoItem) {
	n.record("TodosChanged", items)
}

func (n *recordingNotifier) ChangesJournaled(latest string) { n.record("ChangesJournaled", latest) }

package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// todoTestDeps gives a workspace and a private state folder.
func todoTestDeps(t *testing.T, root string) (*testDeps, *recordingNotifier) {
	t.Helper()
	ws, err := workspace.NewSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	n := &recordingNotifier{}
	d := &testDeps{Workspace: ws, Notifier: n}
	d.SetSettings(settings.Settings{})
	return d, n
}

func todoRegistry(t *testing.T, d *testDeps) *toolbridge.Registry {
	t.Helper()
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(todoTools(d)...); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTodosPersistAcrossSessions(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root := t.TempDir()
	d, n := todoTestDeps(t, root)
	r := todoRegistry(t, d)

	env := call(t, r, "todo_add", map[string]any{"content": "Fix the parser", "priority": "high"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "Added todo #1.") || !strings.Contains(env.Text, "[ ] #1 Fix the parser (high priority)") {
		t.Fatalf("todo_add = %s %q", env.Code, env.Text)
	}
	call(t, r, "todo_add", map[string]any{"content": "Update the changelog"})
	call(t, r, "todo_add", map[string]any{"content": "Tag the release"})
	if env := call(t, r, "todo_remove", map[string]any{"id": 3}); env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "Removed todo #3 (Tag the release).") {
		t.Fatalf("todo_remove = %s %q", env.Code, env.Text)
	}
	env = call(t, r, "todo_update", map[string]any{"id": 1, "status": "completed"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "status pending → completed") {
		t.Fatalf("todo_update = %s %q", env.Code, env.Text)
	}
	if got := len(n.all()); got != 5 {
		t.Errorf("%d TodosChanged notifications, want one per change (5): %q", got, n.all())
	}

	// A new session (a restarted server) sees the same list, and ids are
	// never reused.
	d2, _ := todoTestDeps(t, root)
	r2 := todoRegistry(t, d2)
	env = call(t, r2, "todo_list", map[string]any{})
	want := "Todos: 1 open, 1 completed.\n[ ] #2 Update the changelog\n[x] #1 Fix the parser (high priority)"
	if env.Code != toolbridge.CodeOK || env.Text != want {
		t.Fatalf("todo_list after restart = %q, want %q", env.Text, want)
	}
	if env := call(t, r2, "todo_add", map[string]any{"content": "Next"}); !strings.Contains(env.Text, "Added todo #4.") {
		t.Errorf("id after a removal = %q, want #4 (ids are not reused)", env.Text)
	}

	// Private folder and file, no temp files left behind.
	id, err := workspace.ID(realRoots(d.Workspace))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(state, "whale-ls", id)
	for path, mode := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "todos.json"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, %v; want %v", path, fi.Mode().Perm(), err, mode)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}

func TestTodoFailures(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	d, n := todoTestDeps(t, t.TempDir())
	r := todoRegistry(t, d)
	for _, tc := range []struct {
		tool     string
		input    map[string]any
		wantCode string
		wantText string
	}{
		{"todo_update", map[string]any{"id": 1, "status": "completed"}, toolbridge.CodeNotFound, "the list is empty"},
		{"todo_add", map[string]any{"content": " "}, toolbridge.CodeInvalidInput, "content is empty"},
		{"todo_add", map[string]any{"content": "x", "priority": "urgent"}, toolbridge.CodeInvalidInput, "high, medium, low"},
	} {
		env := call(t, r, tc.tool, tc.input)
		if env.Code != tc.wantCode || !strings.Contains(env.Text, tc.wantText) {
			t.Errorf("%s(%v) = %s %q, want %s containing %q", tc.tool, tc.input, env.Code, env.Text, tc.wantCode, tc.wantText)
		}
	}
	call(t, r, "todo_add", map[string]any{"content": "one"})
	for _, tc := range []struct {
		tool     string
		input    map[string]any
		wantCode string
		wantText string
	}{
		{"todo_remove", map[string]any{"id": 9}, toolbridge.CodeNotFound, "the ids are #1"},
		{"todo_update", map[string]any{"id": 1}, toolbridge.CodeInvalidInput, "nothing to change"},
		{"todo_update", map[string]any{"id": 1, "status": "pending"}, toolbridge.CodeOK, "nothing changed"},
	} {
		env := call(t, r, tc.tool, tc.input)
		if env.Code != tc.wantCode || !strings.Contains(env.Text, tc.wantText) {
			t.Errorf("%s(%v) = %s %q, want %s containing %q", tc.tool, tc.input, env.Code, env.Text, tc.wantCode, tc.wantText)
		}
	}
	if got := len(n.all()); got != 1 {
		t.Errorf("%d notifications, want 1 (only the add changed anything)", got)
	}
}

// TestCorruptedTodoFileIsMovedAside: a broken file is kept under another
// name and the model is warned; the list is never emptied silently.
func TestCorruptedTodoFileIsMovedAside(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	d, _ := todoTestDeps(t, t.TempDir())
	r := todoRegistry(t, d)
	call(t, r, "todo_add", map[string]any{"content": "keep me"})
	id, _ := workspace.ID(realRoots(d.Workspace))
	path := filepath.Join(state, "whale-ls", id, "todos.json")
	broken := []byte(`{"version":1,"items":[{"id":1,"content":"keep me"` /* cut short */)
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	env := call(t, r, "todo_list", map[string]any{})
	if env.Code != toolbridge.CodeOK || !strings.HasPrefix(env.Text, "Warning: the saved todo list was unreadable") || !strings.Contains(env.Text, "todos.json.corrupt-") {
		t.Fatalf("todo_list on a corrupted file = %s %q, want a warning naming the moved file", env.Code, env.Text)
	}
	matches, _ := filepath.Glob(path + ".corrupt-*")
	if len(matches) != 1 {
		t.Fatalf("moved-aside files = %v, want one", matches)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != string(broken) {
		t.Errorf("moved-aside file holds %q, want the broken bytes unchanged", b)
	}
	if env := call(t, r, "todo_list", map[string]any{}); strings.Contains(env.Text, "Warning") {
		t.Errorf("the warning repeats on the next call: %q", env.Text)
	}
}

func TestTodoWithoutStateFolder(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	d, _ := todoTestDeps(t, t.TempDir())
	env := call(t, todoRegistry(t, d), "todo_list", map[string]any{})
	if env.Code != toolbridge.CodeNotConfigured || !strings.Contains(env.Text, "cannot be stored") {
		t.Errorf("todo_list without a state folder = %s %q", env.Code, env.Text)
	}
}

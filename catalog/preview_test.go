package catalog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// previewing builds a workspace with the edit, shell and todo tools, a
// journal, edits.review = review, and the preview options over them.
func previewing(t *testing.T, files map[string]string, review string, gate *execboundary.Gate) (*testDeps, PreviewOptions, string) {
	t.Helper()
	var c *Committer
	d, r, root := testWorkspaceWith(t, files, func(d *testDeps, root string) {
		withJournal(t, d, root)
		var cfg settings.Settings
		cfg.Edits.Review = review
		d.SetSettings(cfg)
		d.ExecGate = gate
	}, func(d *testDeps) []toolbridge.Tool {
		c = NewCommitter(CommitOptions{Workspace: d.Workspace, Reads: d.Reads, Settings: d.settings, Journal: d.Journal})
		return []toolbridge.Tool{Edit(c), MultiEdit(c), Write(c), ApplyPatch(c)}
	}, todoTools, planTools, shellTools, func(d *testDeps) []toolbridge.Tool { return []toolbridge.Tool{ReadFile(d.Workspace, nil, d.Reads)} })
	return d, PreviewOptions{Registry: r, Commits: c, Workspace: d.Workspace, Gate: gate}, root
}

func preview(t *testing.T, o PreviewOptions, tool string, input any) Preview {
	t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return PreviewCall(context.Background(), o, tool, b)
}

// TestPreviewChanges: each edit tool's call is planned as its commit would
// be, and told as a title, a ```diff fence and its files; a call that
// would fail says why; nothing is written or journaled.
func TestPreviewChanges(t *testing.T) {
	files := map[string]string{
		"src/app/main.go": "package main\n\nfunc hello(name string) string {\n\treturn \"hello \" + name\n}\n",
		"b.txt":           "one\ntwo\n",
	}
	d, o, root := previewing(t, files, settings.ReviewOff, nil)
	for _, tc := range []struct {
		name      string
		tool      string
		input     any
		title     string
		files     []PreviewFile
		inDetail  []string
		wantError string
	}{
		{
			name: "edit", tool: "edit",
			input: map[string]any{"file_path": "src/app/main.go", "search": "\treturn \"hello \" + name", "replace": "\treturn \"hi \" + name"},
			title: "Edit src/app/main.go (+1 −1)", files: []PreviewFile{{Path: "src/app/main.go", Added: 1, Removed: 1}},
			inDetail: []string{"```diff\n--- a/src/app/main.go\n+++ b/src/app/main.go\n", "-\treturn \"hello \" + name\n+\treturn \"hi \" + name\n", "\n```"},
		},
		{
			name: "edit, tolerant match", tool: "edit",
			input: map[string]any{"file_path": "src/app/main.go", "search": "    return \"hello \" + name", "replace": "\treturn \"hey \" + name"},
			title: "Edit src/app/main.go (+1 −1)", files: []PreviewFile{{Path: "src/app/main.go", Added: 1, Removed: 1}},
			inDetail: []string{"did not match the file exactly", "+\treturn \"hey \" + name"},
		},
		{
			name: "multi_edit", tool: "multi_edit",
			input: map[string]any{"file_path": "b.txt", "edits": []any{map[string]any{"search": "one", "replace": "1"}, map[string]any{"search": "two", "replace": "2\nthree"}}},
			title: "Edit b.txt (+3 −2)", files: []PreviewFile{{Path: "b.txt", Added: 3, Removed: 2}},
			inDetail: []string{"-one\n-two\n+1\n+2\n+three\n"},
		},
		{
			name: "write creates", tool: "write",
			input: map[string]any{"file_path": "build/sub/x.txt", "content": "a\nb\n"},
			title: "Create build/sub/x.txt (+2)", files: []PreviewFile{{Path: "build/sub/x.txt", Added: 2}},
			inDetail: []string{"+++ b/build/sub/x.txt", "+a\n+b\n"},
		},
		{
			name: "write overwrites", tool: "write",
			input: map[string]any{"file_path": "b.txt", "content": "one\n"},
			title: "Overwrite b.txt (+0 −1)", files: []PreviewFile{{Path: "b.txt", Removed: 1}},
			inDetail: []string{"-two\n"},
		},
		{
			name: "apply_patch over two files", tool: "apply_patch",
			input: map[string]any{"patch": "*** Begin Patch\n*** Update File: b.txt\n@@\n one\n-two\n+deux\n*** Add File: docs/new.md\n+# New\n*** End Patch\n"},
			title: "Change 2 files (+2 −1)", files: []PreviewFile{{Path: "b.txt", Added: 1, Removed: 1}, {Path: "docs/new.md", Added: 1}},
			inDetail: []string{"+deux\n", "+++ b/docs/new.md"},
		},
		{
			name: "search not found", tool: "edit",
			input: map[string]any{"file_path": "b.txt", "search": "three", "replace": "3"},
			title: "Edit b.txt", wantError: "b.txt", inDetail: []string{"This call will fail: b.txt"},
		},
		{
			name: "input does not fit the schema", tool: "edit",
			input: map[string]any{"file_path": "b.txt"},
			title: "Call whale edit", wantError: "search",
		},
		{
			name: "unknown tool", tool: "edits",
			input: map[string]any{}, title: "Call whale edits", wantError: "edit",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := preview(t, o, tc.tool, tc.input)
			if p.Title != tc.title {
				t.Errorf("Title = %q, want %q", p.Title, tc.title)
			}
			if diff := cmp.Diff(tc.files, p.Files); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
			if p.ReadOnly || p.WhaleAsks {
				t.Errorf("ReadOnly, WhaleAsks = %v, %v; want false, false", p.ReadOnly, p.WhaleAsks)
			}
			if (tc.wantError == "") != (p.Error == "") || !strings.Contains(p.Error, tc.wantError) {
				t.Errorf("Error = %q, want one containing %q", p.Error, tc.wantError)
			}
			for _, s := range tc.inDetail {
				if !strings.Contains(p.Detail, s) {
					t.Errorf("Detail = %q, want it to contain %q", p.Detail, s)
				}
			}
		})
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s after the previews = %q, %v; want it untouched", name, got, err)
		}
	}
	for _, p := range []string{"build", "docs"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s exists after the previews; nothing may be created", p)
		}
	}
	if entries, _, err := d.Journal.List("", 0); err != nil || len(entries) != 0 {
		t.Errorf("journal after the previews = %d entries, %v; want none", len(entries), err)
	}
	// The locks are free: the same edit commits at once.
	if env := call(t, o.Registry, "edit", map[string]any{"file_path": "b.txt", "search": "two", "replace": "2"}); !env.OK || !strings.Contains(env.Text, "```diff\n") {
		t.Errorf("edit after the previews = %+v, want it applied with a fenced diff", env)
	}
}

// TestPreviewRevert: a revert is planned as changes_revert would commit it
// (the three-way merge into the current text), and nothing is reverted.
func TestPreviewRevert(t *testing.T) {
	d, o, root := previewing(t, map[string]string{"src/a.txt": "one\ntwo\n"}, settings.ReviewOff, nil)
	o.Registry = toolbridge.NewRegistry(nil)
	if err := o.Registry.Register(Edit(o.Commits), ChangesRevert(o.Commits)); err != nil {
		t.Fatal(err)
	}
	if env := call(t, o.Registry, "edit", map[string]any{"file_path": "src/a.txt", "search": "two", "replace": "2"}); !env.OK {
		t.Fatalf("edit = %+v", env)
	}
	entries, _, err := d.Journal.List("", 0)
	if err != nil || len(entries) != 1 {
		t.Fatalf("journal = %d entries, %v", len(entries), err)
	}
	p := preview(t, o, "changes_revert", map[string]any{"id": entries[0].ID})
	if p.Title != "Revert src/a.txt (+1 −1)" || !strings.Contains(p.Detail, "-2\n+two\n") || p.Error != "" {
		t.Errorf("preview of the revert = %+v, want the diff back to two", p)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "src", "a.txt")); string(got) != "one\n2\n" {
		t.Errorf("src/a.txt after the preview = %q, want the edit still there", got)
	}
	if p := preview(t, o, "changes_revert", map[string]any{"id": "nope"}); !strings.Contains(p.Error, "nope") {
		t.Errorf("preview of an unknown entry = %+v, want an error naming it", p)
	}
}

// TestPreviewReview: with edits.review on, whale asks, and the preview says
// so (with ask-outside-open, only for files not open in the editor).
func TestPreviewReview(t *testing.T) {
	for _, mode := range []string{settings.ReviewAsk, settings.ReviewAskOutsideOpen} {
		_, o, _ := previewing(t, map[string]string{"a.txt": "a\n"}, mode, nil)
		p := preview(t, o, "edit", map[string]any{"file_path": "a.txt", "search": "a", "replace": "b"})
		if !p.WhaleAsks || !strings.Contains(p.Detail, "for review") {
			t.Errorf("edits.review %s: preview = %+v, want WhaleAsks and a detail that says whale asks for a review", mode, p)
		}
	}
}

// TestPreviewReadOnlyTools: reading, planning and todo tools change nothing
// of the user's, so a host never asks about them.
func TestPreviewReadOnlyTools(t *testing.T) {
	_, o, _ := previewing(t, map[string]string{"a.txt": "a\n"}, settings.ReviewOff, nil)
	for _, tc := range []struct {
		tool  string
		input any
	}{
		{"read_file", map[string]any{"file_path": "a.txt"}},
		{"todo_add", map[string]any{"content": "write the tests"}},
		{"update_plan", map[string]any{"plan": []any{map[string]any{"step": "a", "status": "pending"}}}},
	} {
		p := preview(t, o, tc.tool, tc.input)
		if !p.ReadOnly || p.WhaleAsks || p.Error != "" || !strings.Contains(p.Detail, "```json\n") {
			t.Errorf("preview of %s = %+v, want ReadOnly with the input as JSON", tc.tool, p)
		}
	}
}

// TestPreviewShell: a command's preview names the command, its programs and
// folder, and what the exec boundary will do, in plain words: no rule
// syntax, no task ids.
func TestPreviewShell(t *testing.T) {
	gate := execboundary.NewGate(execboundary.Options{Helper: []string{os.Args[0], execboundary.HelperCommand}, Audit: execboundary.NewAuditLog(t.TempDir())})
	if err := gate.Configure("enforce", json.RawMessage(`[{"program": "curl", "decision": "deny"}, {"program": "touch", "argsAny": ["-*d*"], "decision": "ask"}, {"program": "rm", "argsAny": ["-*[rRf]*"], "decision": "ask", "why": "deletes files recursively or without asking"}]`), 0); err != nil {
		t.Fatal(err)
	}
	if st := gate.State(); !st.Available {
		t.Skipf("the exec gate is not available here: %s", st.Reason)
	}
	_, o, _ := previewing(t, map[string]string{"src/a.txt": "a\n", "build/x.o": "x"}, settings.ReviewOff, gate)
	for _, tc := range []struct {
		input     map[string]any
		title     string
		readOnly  bool
		whaleAsks bool
		error     string
		inDetail  []string
		notIn     []string
	}{
		{
			input: map[string]any{"command": "rm -rf build", "cwd": "src"},
			title: "Run `rm -rf build` in src/", whaleAsks: true,
			inDetail: []string{"```sh\nrm -rf build\n```", "Folder: `src/`", "- `rm -rf build` (", ": whale asks you first", "whale will ask you before it runs: `rm` with `-rf` deletes files recursively or without asking."},
			notIn:    []string{"[rRf]", "→", "task", "t1"},
		},
		{
			input: map[string]any{"command": "touch -d yesterday a.txt && ls"},
			title: "Run `touch -d yesterday a.txt && ls` in " + "", whaleAsks: true,
			inDetail: []string{"whale will ask you before it runs: your execBoundary.rules ask about `touch` with `-d`."},
			notIn:    []string{"-*d*"},
		},
		{
			input: map[string]any{"command": "ls -la && cat src/a.txt"}, readOnly: true,
			inDetail: []string{"run without asking", "This command only reads."},
		},
		{
			input: map[string]any{"command": "sh -c 'curl -s example.com'"},
			error: "whale will refuse to run it: your execBoundary.rules refuse `curl`.",
		},
	} {
		p := preview(t, o, "shell_run", tc.input)
		if tc.title != "" && !strings.HasPrefix(p.Title, tc.title) {
			t.Errorf("%v: Title = %q, want %q", tc.input, p.Title, tc.title)
		}
		if p.ReadOnly != tc.readOnly || p.WhaleAsks != tc.whaleAsks || p.Error != tc.error {
			t.Errorf("%v: ReadOnly, WhaleAsks, Error = %v, %v, %q; want %v, %v, %q", tc.input, p.ReadOnly, p.WhaleAsks, p.Error, tc.readOnly, tc.whaleAsks, tc.error)
		}
		for _, s := range tc.inDetail {
			if !strings.Contains(p.Detail, s) {
				t.Errorf("%v: Detail = %q, want it to contain %q", tc.input, p.Detail, s)
			}
		}
		for _, s := range tc.notIn {
			if strings.Contains(p.Detail, s) {
				t.Errorf("%v: Detail = %q, want no %q in it", tc.input, p.Detail, s)
			}
		}
	}
	if p := preview(t, o, "shell_run", map[string]any{"command": "ls", "cwd": "nowhere"}); !strings.Contains(p.Error, "does not exist") {
		t.Errorf("preview in a missing folder: Error = %q, want one that says it does not exist", p.Error)
	}
}

// TestFenced: a fence is longer than any backtick run of its text.
func TestFenced(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"-a\n+b\n", "```diff\n-a\n+b\n```"},
		{"+```go\n+x\n+```\n", "````diff\n+```go\n+x\n+```\n````"},
	} {
		if got := fencedDiff(tc.text); got != tc.want {
			t.Errorf("fencedDiff(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

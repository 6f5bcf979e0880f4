package catalog

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func readTestFile(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEditToolsInCatalog(t *testing.T) {
	d, _, _ := testWorkspace(t, nil, editTools, fileTools)
	want := map[string]bool{"edit": true, "multi_edit": true, "write": true, "apply_patch": true}
	for _, tool := range d.all() {
		if !want[tool.Spec.Name] {
			continue
		}
		delete(want, tool.Spec.Name)
		if tool.Spec.ReadOnly || tool.Spec.Group != toolbridge.GroupEdit || !strings.Contains(LongHelp(tool.Spec.Name), "Example") {
			t.Errorf("%s: spec %+v is not a writing edit tool with an example in its long help", tool.Spec.Name, tool.Spec)
		}
	}
	if len(want) > 0 {
		t.Errorf("Catalog lacks %v", want)
	}
}

func TestEditToolOnDisk(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"a.go": "package a\n\nfunc f() int {\r\n\treturn 1\r\n}\r\n"}, editTools, fileTools)
	env := call(t, r, "edit", map[string]any{"file_path": "a.go", "search": "return 1", "replace": "return 2"})
	if !env.OK {
		t.Fatalf("edit failed: %s: %s", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "a.go"); got != "package a\n\nfunc f() int {\r\n\treturn 2\r\n}\r\n" {
		t.Errorf("a.go = %q", got)
	}
	for _, want := range []string{"Edited a.go: 1 replacement at line 4", "```diff\n@@ -1,5 +1,5 @@\n", "-\treturn 1", "+\treturn 2"} {
		if !strings.Contains(env.Text, want) {
			t.Errorf("result text lacks %q:\n%s", want, env.Text)
		}
	}
	// The first line names the file: the diff's own header lines would
	// say it again.
	for _, notWant := range []string{"--- a/a.go", "+++ b/a.go"} {
		if strings.Contains(env.Text, notWant) {
			t.Errorf("result text has %q:\n%s", notWant, env.Text)
		}
	}
}

func TestEditToolReportsRepairs(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"a.py": "class A:\n    def f(self):\n        return 1\n"}, editTools, fileTools)
	env := call(t, r, "edit", map[string]any{"file_path": "a.py", "search": "def f(self):\n    return 1", "replace": "def f(self):\n    return 2"})
	if !env.OK || len(env.Repairs) == 0 || env.Repairs[len(env.Repairs)-1] != "indent_shifted" {
		t.Fatalf("edit = %+v, want ok with indent_shifted", env)
	}
	if got := readTestFile(t, root, "a.py"); got != "class A:\n    def f(self):\n        return 2\n" {
		t.Errorf("a.py = %q", got)
	}
}

func TestEditToolFailures(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"a.txt": "x\ny\nx\n", "dir/b.txt": "b\n"}, editTools, fileTools)
	for _, tc := range []struct {
		name  string
		input map[string]any
		code  string
		text  string
	}{
		{"not unique", map[string]any{"file_path": "a.txt", "search": "x", "replace": "z"}, toolbridge.CodeSearchNotUnique, "a.txt: search text matches 2 places (lines 1, 3)"},
		{"not found", map[string]any{"file_path": "a.txt", "search": "q", "replace": "z"}, toolbridge.CodeSearchNotFound, "a.txt: search text was not found"},
		{"no change", map[string]any{"file_path": "a.txt", "search": "y", "replace": "y"}, toolbridge.CodeNoChange, "identical"},
		{"missing file", map[string]any{"file_path": "nope.txt", "search": "y", "replace": "z"}, toolbridge.CodeNotFound, "nope.txt"},
		{"folder", map[string]any{"file_path": "dir", "search": "y", "replace": "z"}, toolbridge.CodeIsDirectory, "folder"},
		{"outside", map[string]any{"file_path": "../x.txt", "search": "y", "replace": "z"}, toolbridge.CodePathEscapesWorkspace, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := call(t, r, "edit", tc.input)
			if env.OK || env.Code != tc.code || !strings.Contains(env.Text, tc.text) {
				t.Errorf("edit(%v) = %s %q, want %s containing %q", tc.input, env.Code, env.Text, tc.code, tc.text)
			}
		})
	}
	if got := readTestFile(t, root, "a.txt"); got != "x\ny\nx\n" {
		t.Errorf("a.txt changed to %q by failed edits", got)
	}
}

func TestEditSaysFileChangedSinceRead(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"s.txt": "one\ntwo\n"}, editTools, fileTools)
	if env := call(t, r, "read_file", map[string]any{"file_path": "s.txt"}); !env.OK {
		t.Fatalf("read_file: %s", env.Text)
	}
	os.WriteFile(filepath.Join(root, "s.txt"), []byte("zero\none\ntwo\n"), 0o644)
	env := call(t, r, "edit", map[string]any{"file_path": "s.txt", "search": "two", "replace": "2"})
	if !env.OK || !strings.Contains(env.Text, "changed since you last read it") {
		t.Fatalf("edit = %s %q, want ok with a changed-since-read note", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "s.txt"); got != "zero\none\n2\n" {
		t.Errorf("s.txt = %q", got)
	}
}

// stubEditor is an editor with open documents that applies changes to its
// own buffers and records what it was asked.
type stubEditor struct {
	mu            sync.Mutex
	docs          map[string]toolbridge.Document
	applied       [][]toolbridge.DocumentChange
	applyFailure  error
	saveSupported bool
	saved         []string
}

func (e *stubEditor) Document(path string) (toolbridge.Document, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[path]
	return d, ok
}

func (e *stubEditor) Documents() []toolbridge.Document {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []toolbridge.Document
	for _, d := range e.docs {
		out = append(out, d)
	}
	return out
}

func (e *stubEditor) ApplyEdits(ctx context.Context, changes []toolbridge.DocumentChange) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.applied = append(e.applied, changes)
	if e.applyFailure != nil {
		return e.applyFailure
	}
	for _, c := range changes {
		d := e.docs[c.Path]
		if d.Version != c.Version {
			return &toolbridge.DocumentMovedError{Path: c.Path, Planned: c.Version, Actual: d.Version}
		}
		d.Text, d.Version = c.NewText, d.Version+1
		e.docs[c.Path] = d
	}
	return nil
}

func (e *stubEditor) SaveDocuments(ctx context.Context, paths []string) ([]string, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.saveSupported {
		return nil, false, nil
	}
	e.saved = append(e.saved, paths...)
	return paths, true, nil
}

func TestEditOpenDocumentGoesToTheBuffer(t *testing.T) {
	var abs string
	ed := &stubEditor{saveSupported: true}
	_, r, root := testWorkspaceWith(t, map[string]string{"open.go": "on disk\n"}, func(d *testDeps, root string) {
		abs = filepath.Join(root, "open.go")
		ed.docs = map[string]toolbridge.Document{abs: {Path: abs, Version: 7, Text: "unsaved\r\nbuffer\r\n"}}
		d.Editor = ed
	}, editTools, fileTools)
	env := call(t, r, "edit", map[string]any{"file_path": "open.go", "search": "buffer", "replace": "text"})
	if !env.OK {
		t.Fatalf("edit failed: %s %s", env.Code, env.Text)
	}
	if len(ed.applied) != 1 || len(ed.applied[0]) != 1 {
		t.Fatalf("ApplyEdits calls = %+v, want one with one document", ed.applied)
	}
	c := ed.applied[0][0]
	wantEdits := []toolbridge.TextEdit{{Start: toolbridge.Pos{Line: 1, Col: 0}, End: toolbridge.Pos{Line: 1, Col: 6}, NewText: "text"}}
	if c.Path != abs || c.Version != 7 || c.NewText != "unsaved\r\ntext\r\n" || !reflect.DeepEqual(c.Edits, wantEdits) {
		t.Errorf("DocumentChange = %+v; want version 7, one edit of line 1 and the new text", c)
	}
	if readTestFile(t, root, "open.go") != "on disk\n" {
		t.Errorf("the disk file was written although the document is open")
	}
	if len(ed.saved) != 1 || !strings.Contains(env.Text, "saved") {
		t.Errorf("saved = %v, text %q; want the document saved", ed.saved, env.Text)
	}

	// An editor that cannot save: the result says the change is only in the buffer.
	ed.saveSupported = false
	env = call(t, r, "edit", map[string]any{"file_path": "open.go", "search": "text", "replace": "words"})
	if !env.OK || !strings.Contains(env.Text, "editor buffer only") {
		t.Errorf("edit = %s %q, want a note that the change is in the buffer only", env.Code, env.Text)
	}

	// The editor refuses (for example the version moved on): write_conflict.
	ed.applyFailure = toolbridge.Fail(toolbridge.CodeWriteConflict, "the editor did not apply the edit; read the file again")
	env = call(t, r, "edit", map[string]any{"file_path": "open.go", "search": "words", "replace": "more"})
	if env.OK || env.Code != toolbridge.CodeWriteConflict {
		t.Errorf("edit = %s %q, want write_conflict", env.Code, env.Text)
	}
}

func TestEditRefusesReadOnlyFile(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"ro.txt": "keep\n"}, editTools, fileTools)
	os.Chmod(filepath.Join(root, "ro.txt"), 0o444)
	env := call(t, r, "edit", map[string]any{"file_path": "ro.txt", "search": "keep", "replace": "lose"})
	if env.OK || env.Code != toolbridge.CodeEditRejected || !strings.Contains(env.Text, "read-only") {
		t.Fatalf("edit = %s %q, want edit_rejected for a read-only file", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "ro.txt"); got != "keep\n" {
		t.Errorf("ro.txt = %q", got)
	}
}

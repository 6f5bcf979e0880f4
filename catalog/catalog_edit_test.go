package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/whale-ls/whale-ls/edits"
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
	for _, tool := range Catalog(d) {
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
	for _, want := range []string{"Edited a.go: 1 replacement at line 4", "--- a/a.go", "-\treturn 1", "+\treturn 2"} {
		if !strings.Contains(env.Text, want) {
			t.Errorf("result text lacks %q:\n%s", want, env.Text)
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

func TestMultiEditToolAtomic(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"m.txt": "one\ntwo\nthree\n"}, editTools, fileTools)
	env := call(t, r, "multi_edit", map[string]any{"file_path": "m.txt", "edits": []map[string]any{
		{"search": "one", "replace": "1"}, {"search": "four", "replace": "4"},
	}})
	if env.OK || env.Code != toolbridge.CodeSearchNotFound || !strings.Contains(env.Text, "step 2 of 2") {
		t.Fatalf("multi_edit = %s %q, want search_not_found at step 2", env.Code, env.Text)
	}
	if data, _ := json.Marshal(env.Data); !strings.Contains(string(data), `"step":2`) {
		t.Errorf("data = %s, want step 2", data)
	}
	if got := readTestFile(t, root, "m.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("m.txt = %q after a failed multi_edit", got)
	}
	env = call(t, r, "multi_edit", map[string]any{"file_path": "m.txt", "edits": []map[string]any{
		{"search": "one", "replace": "1"}, {"search": "1\ntwo", "replace": "1\n2"},
	}})
	if !env.OK || readTestFile(t, root, "m.txt") != "1\n2\nthree\n" {
		t.Fatalf("multi_edit = %s %q; file %q", env.Code, env.Text, readTestFile(t, root, "m.txt"))
	}
}

func TestWriteTool(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"old.txt": "a\r\nb\r\n"}, editTools, fileTools)
	for _, tc := range []struct {
		path, content, want, text string
	}{
		{"new/deep/run.bat", "@echo off\necho hi\n", "@echo off\r\necho hi\r\n", "Created new/deep/run.bat (2 lines, UTF-8, CRLF)"},
		{"x.ps1", "Write-Host hi\n", "Write-Host hi\n", "Created x.ps1"},
		{"old.txt", "a\nb\nc\n", "a\r\nb\r\nc\r\n", "Wrote old.txt (+1 -0 lines)"},
	} {
		env := call(t, r, "write", map[string]any{"file_path": tc.path, "content": tc.content})
		if !env.OK || !strings.Contains(env.Text, tc.text) {
			t.Errorf("write %s = %s %q, want text %q", tc.path, env.Code, env.Text, tc.text)
		}
		if got := readTestFile(t, root, tc.path); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.path, got, tc.want)
		}
	}
	if env := call(t, r, "write", map[string]any{"file_path": "old.txt", "content": "a\nb\nc\n"}); env.Code != toolbridge.CodeNoChange {
		t.Errorf("writing the same content = %s, want no_change", env.Code)
	}
}

func TestApplyPatchTool(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"keep.txt": "1\n2\n3\n", "gone.txt": "bye\n"}, editTools, fileTools)
	patch := "--- a/keep.txt\n+++ b/keep.txt\n@@ -20,3 +20,3 @@\n 1\n-2\n+two\n 3\n" +
		"--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1 @@\n+hello\n" +
		"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
	env := call(t, r, "apply_patch", map[string]any{"patch": patch})
	if !env.OK {
		t.Fatalf("apply_patch failed: %s %s", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "keep.txt"); got != "1\ntwo\n3\n" {
		t.Errorf("keep.txt = %q", got)
	}
	if got := readTestFile(t, root, "sub/new.txt"); got != "hello\n" {
		t.Errorf("sub/new.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt still exists: %v", err)
	}
	for _, want := range []string{"Applied the patch to 3 files", "+++ b/sub/new.txt", "+++ /dev/null"} {
		if !strings.Contains(env.Text, want) {
			t.Errorf("result lacks %q:\n%s", want, env.Text)
		}
	}
}

func TestApplyPatchToolAllOrNone(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, editTools, fileTools)
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-stale\n+B\n"
	env := call(t, r, "apply_patch", map[string]any{"patch": patch})
	if env.OK || env.Code != toolbridge.CodeSearchNotFound || !strings.Contains(env.Text, "b.txt, hunk 1 of 1") {
		t.Fatalf("apply_patch = %s %q, want search_not_found for b.txt", env.Code, env.Text)
	}
	if readTestFile(t, root, "a.txt") != "a\n" {
		t.Errorf("a.txt was changed although the patch failed")
	}
}

// TestApplyPatchToolEnvelope sends the "*** Begin Patch" format through the
// tool: every operation lands in one commit, the result shows each diff, and
// refusals leave every file as it was.
func TestApplyPatchToolEnvelope(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{
		"main.go":  "package main\n\nfunc setup() {\n\tdebug := false\n}\n\nfunc main() {\n\tdebug := false\n}\n",
		"old.txt":  "one\x00two",
		"src/a.py": "def greet():\n    print(\"Hi\")\n",
		"taken.py": "x = 1\n",
		"redo.txt": "before\r\n",
	}, editTools, fileTools)
	patch := "*** Begin Patch\n" +
		"*** Update File: main.go\n@@ func main() {\n-\tdebug := false\n+\tdebug := true\n" +
		"*** Add File: docs/new.md\n+# New\n" +
		"*** Delete File: old.txt\n" +
		"*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-    print(\"Hi\")\n+    print(\"Hello\")\n" +
		"*** Delete File: redo.txt\n*** Add File: redo.txt\n+after\n" +
		"*** End Patch\n"
	env := call(t, r, "apply_patch", map[string]any{"patch": patch})
	if !env.OK {
		t.Fatalf("apply_patch failed: %s %s", env.Code, env.Text)
	}
	for name, want := range map[string]string{
		"main.go":     "package main\n\nfunc setup() {\n\tdebug := false\n}\n\nfunc main() {\n\tdebug := true\n}\n",
		"docs/new.md": "# New\n",
		"src/b.py":    "def greet():\n    print(\"Hello\")\n",
		"redo.txt":    "after\n",
	} {
		if got := readTestFile(t, root, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, gone := range []string{"old.txt", "src/a.py"} {
		if _, err := os.Stat(filepath.Join(root, gone)); !os.IsNotExist(err) {
			t.Errorf("%s still exists: %v", gone, err)
		}
	}
	for _, want := range []string{"Applied the patch to 5 files", "Edited main.go", "Created docs/new.md", "Deleted old.txt (7 bytes, not text)", "Moved src/a.py to src/b.py", "+\tdebug := true"} {
		if !strings.Contains(env.Text, want) {
			t.Errorf("result lacks %q:\n%s", want, env.Text)
		}
	}

	for _, tc := range []struct {
		name, patch, code, text string
	}{
		{"move onto an existing file", "*** Begin Patch\n*** Update File: main.go\n*** Move to: taken.py\n@@\n-package main\n+package app\n*** End Patch\n", toolbridge.CodeWriteConflict, "onto a file that exists"},
		{"delete a missing file", "*** Begin Patch\n*** Update File: main.go\n@@\n-package main\n+package app\n*** Delete File: nope.txt\n*** End Patch\n", toolbridge.CodeNotFound, "nope.txt does not exist"},
		{"add an existing file", "*** Begin Patch\n*** Add File: taken.py\n+y = 2\n*** End Patch\n", toolbridge.CodeWriteConflict, "taken.py already exists"},
		{"ambiguous chunk", "*** Begin Patch\n*** Update File: main.go\n@@\n-}\n+} // end\n*** End Patch\n", toolbridge.CodeSearchNotUnique, "lines 5, 9"},
		{"malformed", "*** Begin Patch\n*** Update File: main.go\n@@\nfunc main() {\n*** End Patch\n", toolbridge.CodeInvalidInput, "patch line 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := call(t, r, "apply_patch", map[string]any{"patch": tc.patch})
			if env.OK || env.Code != tc.code || !strings.Contains(env.Text, tc.text) {
				t.Fatalf("apply_patch = %s %q, want %s containing %q", env.Code, env.Text, tc.code, tc.text)
			}
			if got := readTestFile(t, root, "main.go"); !strings.HasPrefix(got, "package main\n") {
				t.Errorf("main.go = %q after a refused patch", got)
			}
		})
	}
}

// TestEditConcurrentExternalWrite: a program other than whale changes the
// file between the plan and the commit. The commit notices, plans again on
// the new text and applies the edit on top, keeping the other writer's
// line; a writer that keeps changing it gets a truthful write_conflict.
func TestEditConcurrentExternalWrite(t *testing.T) {
	d, r, root := testWorkspace(t, map[string]string{"c.txt": "alpha\nbeta\n"}, editTools, fileTools)
	d.beforeCommit = func() {
		if readTestFile(t, root, "c.txt") == "alpha\nbeta\n" {
			os.WriteFile(filepath.Join(root, "c.txt"), []byte("alpha\nbeta\ngamma from someone else\n"), 0o644)
		}
	}
	env := call(t, r, "edit", map[string]any{"file_path": "c.txt", "search": "beta", "replace": "BETA"})
	if !env.OK {
		t.Fatalf("edit = %s %q, want it applied on the new text", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "c.txt"); got != "alpha\nBETA\ngamma from someone else\n" {
		t.Errorf("c.txt = %q, want the edit on top of the other writer's line", got)
	}

	n := 0
	d.beforeCommit = func() {
		n++
		os.WriteFile(filepath.Join(root, "c.txt"), []byte(fmt.Sprintf("alpha\nBETA\nwrite %d\n", n)), 0o644)
	}
	env = call(t, r, "edit", map[string]any{"file_path": "c.txt", "search": "BETA", "replace": "beta"})
	if env.OK || env.Code != toolbridge.CodeWriteConflict || !strings.Contains(env.Text, "by a program other than whale") || !strings.Contains(env.Text, "read it again") {
		t.Fatalf("edit = %s %q, want write_conflict naming the outside writer", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "c.txt"); got != fmt.Sprintf("alpha\nBETA\nwrite %d\n", n) {
		t.Errorf("c.txt = %q, the other writer's content was lost", got)
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
	d, r, root := testWorkspace(t, map[string]string{"open.go": "on disk\n"}, editTools, fileTools)
	abs := filepath.Join(root, "open.go")
	ed := &stubEditor{docs: map[string]toolbridge.Document{abs: {Path: abs, Version: 7, Text: "unsaved\r\nbuffer\r\n"}}, saveSupported: true}
	d.Editor = ed
	env := call(t, r, "edit", map[string]any{"file_path": "open.go", "search": "buffer", "replace": "text"})
	if !env.OK {
		t.Fatalf("edit failed: %s %s", env.Code, env.Text)
	}
	if len(ed.applied) != 1 || len(ed.applied[0]) != 1 {
		t.Fatalf("ApplyEdits calls = %+v, want one with one document", ed.applied)
	}
	c := ed.applied[0][0]
	wantEdits := []edits.TextEdit{{Start: edits.Pos{Line: 1, Col: 0}, End: edits.Pos{Line: 1, Col: 6}, NewText: "text"}}
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

func TestApplyPatchMixesBuffersAndDisk(t *testing.T) {
	d, r, root := testWorkspace(t, map[string]string{"open.txt": "x\n", "closed.txt": "y\n"}, editTools, fileTools)
	abs := filepath.Join(root, "open.txt")
	ed := &stubEditor{docs: map[string]toolbridge.Document{abs: {Path: abs, Version: 1, Text: "x\n"}}, saveSupported: true}
	d.Editor = ed
	patch := "--- a/open.txt\n+++ b/open.txt\n@@ -1 +1 @@\n-x\n+X\n--- a/closed.txt\n+++ b/closed.txt\n@@ -1 +1 @@\n-y\n+Y\n"
	env := call(t, r, "apply_patch", map[string]any{"patch": patch})
	if !env.OK {
		t.Fatalf("apply_patch failed: %s %s", env.Code, env.Text)
	}
	if doc, _ := ed.Document(abs); doc.Text != "X\n" {
		t.Errorf("buffer = %q, want %q", doc.Text, "X\n")
	}
	if got := readTestFile(t, root, "closed.txt"); got != "Y\n" {
		t.Errorf("closed.txt = %q", got)
	}

	// A disk conflict stops the commit before any buffer changes.
	n := 0
	d.beforeCommit = func() {
		n++
		os.WriteFile(filepath.Join(root, "closed.txt"), []byte(fmt.Sprintf("Y\nother %d\n", n)), 0o644)
	}
	patch = "--- a/open.txt\n+++ b/open.txt\n@@ -1 +1 @@\n-X\n+X2\n--- a/closed.txt\n+++ b/closed.txt\n@@ -1 +1 @@\n-Y\n+Y2\n"
	env = call(t, r, "apply_patch", map[string]any{"patch": patch})
	if env.OK || env.Code != toolbridge.CodeWriteConflict {
		t.Fatalf("apply_patch = %s %q, want write_conflict", env.Code, env.Text)
	}
	if doc, _ := ed.Document(abs); doc.Text != "X\n" {
		t.Errorf("buffer = %q after a failed patch, want it unchanged", doc.Text)
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

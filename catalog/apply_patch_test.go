package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

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
	for _, want := range []string{"Applied the patch to 3 files", "Created sub/new.txt (1 line", "Deleted gone.txt (1 line)", "@@ -0,0 +1,1 @@\n+hello\n"} {
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

func TestApplyPatchMixesBuffersAndDisk(t *testing.T) {
	ed := &stubEditor{saveSupported: true}
	d, r, root := testWorkspaceWith(t, map[string]string{"open.txt": "x\n", "closed.txt": "y\n"}, func(d *testDeps, root string) {
		abs := filepath.Join(root, "open.txt")
		ed.docs = map[string]toolbridge.Document{abs: {Path: abs, Version: 1, Text: "x\n"}}
		d.Editor = ed
	}, editTools, fileTools)
	abs := filepath.Join(root, "open.txt")
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

// TestDeleteOfAFileTheEditorHolds: the editor holding a file (editors load
// files they never show) does not stop its deletion when the buffer holds
// what the disk does (line endings aside); unsaved text in it does, and the
// refusal says how to resolve it.
func TestDeleteOfAFileTheEditorHolds(t *testing.T) {
	for _, tc := range []struct {
		name, buffer string
		wantOK       bool
	}{
		{"clean buffer", "keep\nme\n", true},
		{"clean buffer, CRLF", "keep\r\nme\r\n", true},
		{"unsaved text", "keep\nme\nand more\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ed := &stubEditor{}
			_, r, root := testWorkspaceWith(t, map[string]string{"build/out.txt": "keep\nme\n"}, func(d *testDeps, root string) {
				abs := filepath.Join(root, "build", "out.txt")
				ed.docs = map[string]toolbridge.Document{abs: {Path: abs, Version: 1, Text: tc.buffer}}
				d.Editor = ed
			}, editTools)
			env := call(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: build/out.txt\n*** End Patch\n"})
			_, err := os.Stat(filepath.Join(root, "build", "out.txt"))
			if tc.wantOK {
				if !env.OK || !os.IsNotExist(err) {
					t.Errorf("apply_patch = %s %q, file stat %v; want it deleted", env.Code, env.Text, err)
				}
				return
			}
			if env.OK || env.Code != toolbridge.CodeWriteConflict || !strings.Contains(env.Text, "unsaved changes in the editor") || !strings.Contains(env.Text, "save or close it") || err != nil {
				t.Errorf("apply_patch = %s %q, file stat %v; want a refusal that says to save or close it, and the file kept", env.Code, env.Text, err)
			}
			if len(ed.applied) != 0 {
				t.Errorf("the editor was asked to apply %v", ed.applied)
			}
		})
	}
}

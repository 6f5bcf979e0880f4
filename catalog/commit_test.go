package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

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

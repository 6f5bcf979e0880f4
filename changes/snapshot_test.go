package changes

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/internal/testtree"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/workspace"
)

// writeTree writes files (slash paths → content) under dir with mtimes in
// the past, as a workspace at rest has.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	testtree.Write(t, dir, files)
	old := time.Now().Add(-time.Minute)
	for name := range files {
		os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), old, old)
	}
}

func openRoot(t testing.TB, dir string) (*os.Root, *workspace.Ignorer) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, workspace.NewIgnorer(root)
}

// summarize names each change by kind: "+path", "-path", "~path".
func summarize(dir string, fcs []FileChange) []string {
	var out []string
	for _, fc := range fcs {
		rel, _ := filepath.Rel(dir, fc.Path)
		kind := "~"
		switch {
		case !fc.BeforeExists:
			kind = "+"
		case !fc.AfterExists:
			kind = "-"
		}
		out = append(out, kind+filepath.ToSlash(rel))
	}
	return out
}

func TestSnapshotShellTask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":    "ignored/\n*.log\n",
		"a.txt":         "a\n",
		"b.txt":         "b\n",
		"sub/c.txt":     "c\r\nno final newline",
		"ignored/i.txt": "i\n",
		"keep.log":      "log\n",
	})
	root, ig := openRoot(t, dir)
	j := openTest(t, t.TempDir(), Options{})
	ctx := context.Background()
	snap, err := j.Snapshot(ctx, root, dir, ig)
	if err != nil {
		t.Fatal(err)
	}
	task := exec.Command("sh", "-c", "echo x > new.txt && printf 'changed\\n' > a.txt && rm b.txt && printf 'c\\r\\nmore' > sub/c.txt && echo y > ignored/z && echo l >> keep.log")
	task.Dir = dir
	if out, err := task.CombinedOutput(); err != nil {
		t.Fatalf("task: %v\n%s", err, out)
	}
	fcs, skipped, err := snap.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"~a.txt", "-b.txt", "+new.txt", "~sub/c.txt"}, summarize(dir, fcs)); diff != "" || len(skipped) != 0 {
		t.Fatalf("Changes() differ (-want +got):\n%s; skipped %v", diff, skipped)
	}
	if string(fcs[0].Before) != "a\n" || string(fcs[0].After) != "changed\n" || string(fcs[1].Before) != "b\n" {
		t.Errorf("Changes() contents wrong: %q→%q, deleted %q", fcs[0].Before, fcs[0].After, fcs[1].Before)
	}
	p, err := j.Begin(Meta{Tool: "shell_run"}, fcs)
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Commit()
	if err != nil {
		t.Fatal(err)
	}
	// The next snapshot starts from the task's result: nothing changed.
	snap2, err := j.Snapshot(ctx, root, dir, workspace.NewIgnorer(root))
	if err != nil {
		t.Fatal(err)
	}
	if fcs, _, err := snap2.Changes(ctx); err != nil || len(fcs) != 0 {
		t.Errorf("Changes() of an unchanged tree = %v, %v, want none", summarize(dir, fcs), err)
	}
	// Reverting the task restores all three.
	plan, err := j.PlanRevert(ctx, []string{e.ID}, readDisk)
	if err != nil || len(plan.Conflicts) > 0 {
		t.Fatalf("PlanRevert = %+v, %v", plan, err)
	}
	applyPlan(t, j, plan, []string{e.ID})
	for name, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n", "sub/c.txt": "c\r\nno final newline", "new.txt": ""} {
		got, had, _ := readDisk(filepath.Join(dir, name))
		if string(got) != want || had != (want != "") {
			t.Errorf("after revert %s = %q (exists %v), want %q", name, got, had, want)
		}
	}
}

func TestSnapshotIncremental(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	root, ig := openRoot(t, dir)
	jdir := t.TempDir()
	j := openTest(t, jdir, Options{})
	ctx := context.Background()
	if _, err := j.Snapshot(ctx, root, dir, ig); err != nil {
		t.Fatal(err)
	}
	blobs := blobCount(t, j)
	idx := j.indexPath(dir)
	fi1, _ := os.Stat(idx)
	// Another process (a new Journal) finds the index and reads nothing.
	j2 := openTest(t, jdir, Options{})
	old := j2.loadIndex(idx)
	_, fresh, err := j2.scan(ctx, root, ig, old, nil)
	if err != nil || len(fresh) != 0 || len(old.Files) != 2 {
		t.Errorf("second scan read %v (index of %d files), %v; want nothing read", fresh, len(old.Files), err)
	}
	if _, err := j2.Snapshot(ctx, root, dir, ig); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(idx); !fi2.ModTime().Equal(fi1.ModTime()) {
		t.Errorf("an unchanged tree rewrote the index")
	}
	// One change: one file read, one blob more.
	writeTree(t, dir, map[string]string{"a.txt": "A\n"})
	_, fresh, _ = j2.scan(ctx, root, ig, j2.loadIndex(idx), nil)
	if !cmp.Equal(fresh, []string{"a.txt"}) {
		t.Errorf("scan after one change read %v, want [a.txt]", fresh)
	}
	if n := blobCount(t, j); n != blobs+1 {
		t.Errorf("%d blobs after one change, want %d", n, blobs+1)
	}
}

func TestSnapshotLargeAndCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.bin": strings.Repeat("x", 100), "small.txt": "s\n"})
	root, ig := openRoot(t, dir)
	j := openTest(t, t.TempDir(), Options{MaxFileBytes: 64})
	ctx := context.Background()
	snap, err := j.Snapshot(ctx, root, dir, ig)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, map[string]string{"big.bin": strings.Repeat("y", 100), "small.txt": "S\n"})
	fcs, skipped, err := snap.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(summarize(dir, fcs), []string{"~small.txt"}) || len(skipped) != 1 || !strings.Contains(skipped[0].Reason, "larger than") {
		t.Errorf("Changes() = %v, skipped %+v; want small.txt changed and big.bin skipped as too large", summarize(dir, fcs), skipped)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := j.Snapshot(cctx, root, dir, ig); !errors.Is(err, context.Canceled) {
		t.Errorf("Snapshot(cancelled) = %v, want context.Canceled", err)
	}
}

func TestSnapshotNewlyIgnoredIsNotDeleted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"out/a.txt": "a\n", "b.txt": "b\n"})
	root, ig := openRoot(t, dir)
	j := openTest(t, t.TempDir(), Options{})
	ctx := context.Background()
	snap, err := j.Snapshot(ctx, root, dir, ig)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, map[string]string{".gitignore": "out/\n"})
	snap.ig = workspace.NewIgnorer(root) // the task's ignore file now applies
	fcs, _, err := snap.Changes(ctx)
	if err != nil || !cmp.Equal(summarize(dir, fcs), []string{"+.gitignore"}) {
		t.Errorf("Changes() = %v, %v, want only .gitignore created", summarize(dir, fcs), err)
	}
}

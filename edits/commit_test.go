package edits

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/internal/filelock"
)

// testLocks commit with in-process locks only, as a command line would
// without a runtime folder.
var testLocks = NewLocks(LockOptions{})

// Commit writes every plan or none in one Txn of locks, as a caller that
// read and planned without holding them would.
func Commit(ctx context.Context, locks *Locks, commits ...RootCommit) error {
	var keys []string
	for _, c := range commits {
		for _, p := range c.Plans {
			keys = append(keys, filepath.Join(c.Root.Name(), filepath.FromSlash(p.Path)))
		}
	}
	tx, err := locks.Begin(ctx, keys...)
	if err != nil {
		return err
	}
	defer tx.End()
	if err := tx.Stage(commits); err != nil {
		return err
	}
	return tx.Commit()
}

func commitPlans(root *os.Root, plans []FilePlan) error {
	return Commit(context.Background(), testLocks, RootCommit{Root: root, Plans: plans})
}

// failingRename returns locks whose commits fail to rename target.
func failingRename(target string) *Locks {
	return NewLocks(LockOptions{BeforeRename: func(t string) error {
		if t == target {
			return errors.New("disk full")
		}
		return nil
	}})
}

func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func TestCommitWritesAndKeepsMode(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	p := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(p, []byte("echo a\n"), 0o751); err != nil {
		t.Fatal(err)
	}
	raw, exists, err := ReadFile(root, "run.sh")
	if err != nil || !exists {
		t.Fatalf("ReadFile = %v, %v", exists, err)
	}
	if err := commitPlans(root, []FilePlan{{Path: "run.sh", Existed: true, Expected: raw, New: []byte("echo b\n")}}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(got) != "echo b\n" || fi.Mode().Perm() != 0o751 {
		t.Errorf("after commit: %q mode %v, want %q mode 0751", got, fi.Mode().Perm(), "echo b\n")
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func tempFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".whale-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestCommitCreatesFolders(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	if err := commitPlans(root, []FilePlan{{Path: "a/b/c.txt", New: []byte("x\n")}}); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a", "b", "c.txt")); err != nil || string(got) != "x\n" {
		t.Errorf("created file = %q, %v", got, err)
	}
}

func TestCommitConflicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		setup  func(dir string)
		plan   FilePlan
		reason string
	}{
		{"changed", func(dir string) { os.WriteFile(filepath.Join(dir, "f"), []byte("theirs\n"), 0o644) },
			FilePlan{Path: "f", Existed: true, Expected: []byte("mine\n"), New: []byte("new\n")}, "changed on disk"},
		{"created", func(dir string) { os.WriteFile(filepath.Join(dir, "f"), []byte("theirs\n"), 0o644) },
			FilePlan{Path: "f", New: []byte("new\n")}, "was created on disk"},
		{"deleted", func(dir string) {},
			FilePlan{Path: "f", Existed: true, Expected: []byte("mine\n"), New: []byte("new\n")}, "was deleted on disk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, dir := openRoot(t)
			tc.setup(dir)
			before, _ := os.ReadFile(filepath.Join(dir, "f"))
			err := commitPlans(root, []FilePlan{tc.plan})
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeWriteConflict || !strings.Contains(e.Message, tc.reason) || !strings.Contains(e.Message, "read it again") {
				t.Fatalf("Commit error = %v, want write_conflict %q", err, tc.reason)
			}
			after, _ := os.ReadFile(filepath.Join(dir, "f"))
			if string(after) != string(before) {
				t.Errorf("file changed to %q despite the conflict", after)
			}
		})
	}
}

func TestCommitAllOrNoneOnConflict(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte("b changed\n"), 0o644)
	err := commitPlans(root, []FilePlan{
		{Path: "a", Existed: true, Expected: []byte("a\n"), New: []byte("A\n")},
		{Path: "b", Existed: true, Expected: []byte("b\n"), New: []byte("B\n")},
	})
	if CodeOf(err) != CodeWriteConflict {
		t.Fatalf("error = %v, want write_conflict", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a")); string(got) != "a\n" {
		t.Errorf("a = %q, want it untouched", got)
	}
}

func TestCommitRollsBackFailedRename(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone"), []byte("g\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "c"), []byte("c\n"), 0o644)
	err := Commit(context.Background(), failingRename("c"), RootCommit{Root: root, Plans: []FilePlan{
		{Path: "a", Existed: true, Expected: []byte("a\n"), New: []byte("A\n")},
		{Path: "gone", Existed: true, Expected: []byte("g\n"), Delete: true},
		{Path: "new/n", New: []byte("n\n")},
		{Path: "c", Existed: true, Expected: []byte("c\n"), New: []byte("C\n")},
	}})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error = %v, want the rename failure", err)
	}
	for name, want := range map[string]string{"a": "a\n", "gone": "g\n", "c": "c\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q after rollback, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new", "n")); !os.IsNotExist(err) {
		t.Errorf("created file survived the rollback: %v", err)
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestCommitAllAcrossRoots: a commit over two roots is one commit: a
// conflict in the second root writes nothing in the first, and a failed
// rename in the second puts the first root's files back.
func TestCommitAllAcrossRoots(t *testing.T) {
	t.Parallel()
	rootA, dirA := openRoot(t)
	rootB, dirB := openRoot(t)
	reset := func() {
		os.WriteFile(filepath.Join(dirA, "a"), []byte("a\n"), 0o644)
		os.WriteFile(filepath.Join(dirA, "gone"), []byte("g\n"), 0o644)
		os.WriteFile(filepath.Join(dirB, "b"), []byte("b\n"), 0o644)
	}
	commits := func(bExpected string) []RootCommit {
		return []RootCommit{
			{Root: rootA, Plans: []FilePlan{
				{Path: "a", Existed: true, Expected: []byte("a\n"), New: []byte("A\n")},
				{Path: "gone", Existed: true, Expected: []byte("g\n"), Delete: true},
				{Path: "new", New: []byte("n\n")},
			}},
			{Root: rootB, Plans: []FilePlan{{Path: "b", Existed: true, Expected: []byte(bExpected), New: []byte("B\n")}}},
		}
	}
	untouched := func(what string) {
		t.Helper()
		for file, want := range map[string]string{filepath.Join(dirA, "a"): "a\n", filepath.Join(dirA, "gone"): "g\n", filepath.Join(dirB, "b"): "b\n"} {
			if got, _ := os.ReadFile(file); string(got) != want {
				t.Errorf("%s: %s = %q, want %q", what, filepath.Base(file), got, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dirA, "new")); !os.IsNotExist(err) {
			t.Errorf("%s: the new file in the first root exists: %v", what, err)
		}
		if left := append(tempFiles(t, dirA), tempFiles(t, dirB)...); len(left) > 0 {
			t.Errorf("%s: temporary files left behind: %v", what, left)
		}
	}

	reset()
	if err := Commit(context.Background(), testLocks, commits("b was different\n")...); CodeOf(err) != CodeWriteConflict {
		t.Fatalf("conflict in the second root: error = %v, want write_conflict", err)
	}
	untouched("conflict in the second root")

	reset()
	if err := Commit(context.Background(), failingRename("b"), commits("b\n")...); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("failed rename in the second root: error = %v, want the rename failure", err)
	}
	untouched("failed rename in the second root")

	if err := Commit(context.Background(), testLocks, commits("b\n")...); err != nil {
		t.Fatalf("Commit = %v", err)
	}
	for file, want := range map[string]string{filepath.Join(dirA, "a"): "A\n", filepath.Join(dirA, "new"): "n\n", filepath.Join(dirB, "b"): "B\n"} {
		if got, _ := os.ReadFile(file); string(got) != want {
			t.Errorf("after the commit %s = %q, want %q", filepath.Base(file), got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dirA, "gone")); !os.IsNotExist(err) {
		t.Errorf("the deleted file is still there: %v", err)
	}
}

func TestCommitThroughSymlink(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	os.WriteFile(filepath.Join(dir, "real.txt"), []byte("x\n"), 0o644)
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Skip("no symlinks:", err)
	}
	raw, _, _ := ReadFile(root, "link.txt")
	if err := commitPlans(root, []FilePlan{{Path: "link.txt", Existed: true, Expected: raw, New: []byte("y\n")}}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "real.txt")); string(got) != "y\n" {
		t.Errorf("real.txt = %q, want %q", got, "y\n")
	}
}

func TestCommitRejectsEscapingPaths(t *testing.T) {
	t.Parallel()
	root, _ := openRoot(t)
	for _, p := range []string{"../x", "/etc/passwd", ""} {
		if err := commitPlans(root, []FilePlan{{Path: p, New: []byte("x")}}); CodeOf(err) != CodeInvalidInput {
			t.Errorf("Commit(%q) error = %v, want invalid_input", p, err)
		}
	}
}

// TestCommitNoLostUpdates runs many read-modify-commit loops on one file at
// once; with the stripe locks and the re-read, every append survives.
func TestCommitNoLostUpdates(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	os.WriteFile(filepath.Join(dir, "log.txt"), nil, 0o644)
	const workers = 8
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				raw, _, err := ReadFile(root, "log.txt")
				if err != nil {
					t.Error(err)
					return
				}
				next := append(append([]byte{}, raw...), fmt.Sprintf("worker %d\n", w)...)
				err = commitPlans(root, []FilePlan{{Path: "log.txt", Existed: true, Expected: raw, New: next}})
				if err == nil {
					return
				}
				if CodeOf(err) != CodeWriteConflict {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	got, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
	if n := strings.Count(string(got), "\n"); n != workers {
		t.Errorf("log has %d lines, want %d:\n%s", n, workers, got)
	}
}

// TestCommitReplacesStaleStagingFile: a whale process killed between naming
// its staged content and renaming it leaves the staging file; the next
// commit of that file, which holds its locks, replaces it.
func TestCommitReplacesStaleStagingFile(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	os.WriteFile(filepath.Join(dir, "f"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".f.whale-tmp"), []byte("left by a killed process"), 0o600)
	if err := commitPlans(root, []FilePlan{{Path: "f", Existed: true, Expected: []byte("old\n"), New: []byte("new\n")}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f")); string(got) != "new\n" {
		t.Errorf("f = %q, want %q", got, "new\n")
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestLocksExcludeOtherHolders: a lock file held through one open file
// (as another whale process holds it) keeps a Txn of the same file waiting
// until it is released, and the wait ends with its context.
func TestLocksExcludeOtherHolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	locks := NewLocks(LockOptions{Dir: dir})
	target := filepath.Join(t.TempDir(), "f.txt")
	tx, err := locks.Begin(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if len(tx.held.files) != 1 {
		t.Fatalf("Begin holds %d lock files, want 1", len(tx.held.files))
	}
	// Another process's lock is another open file of the same lock file;
	// take it the way that process would, bypassing this process's stripes.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := filelock.Open(ctx, tx.held.files[0].Name()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("filelock.Open while held = %v, want the context's deadline", err)
	}
	tx.End()
	f, err := filelock.Open(context.Background(), filepath.Join(dir, "locks", bucketName(int(hashKey(lockKey(target))%lockBuckets))))
	if err != nil {
		t.Fatalf("filelock.Open after End = %v", err)
	}
	filelock.Close(f)
}

// TestLockWaitIsBounded: a process outside whale that took a commit's lock
// file and keeps it (a task can open the file) makes Begin fail after
// LockOptions.Wait with a *filelock.HeldError, instead of waiting for ever.
func TestLockWaitIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "f.txt")
	locks := NewLocks(LockOptions{Dir: dir, Wait: 200 * time.Millisecond})
	tx, err := locks.Begin(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	name := tx.held.files[0].Name()
	tx.End()
	squatter, err := filelock.Open(context.Background(), name) // another open file: as another process
	if err != nil {
		t.Fatal(err)
	}
	defer filelock.Close(squatter)
	start := time.Now()
	_, err = locks.Begin(context.Background(), target)
	var held *filelock.HeldError
	if !errors.As(err, &held) {
		t.Fatalf("Begin while another holds the lock = %v, want a *filelock.HeldError", err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("Begin waited %v with a 200ms bound", waited)
	}
}

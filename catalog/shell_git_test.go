package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestGitSurface: every file of .git is stamped, but objects only by their
// fan-out folders, in the repository's own store and in its submodules'
// and Git LFS's; and a change is sorted into code git runs, refs, and the
// rest counted by group.
func TestGitSurface(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"HEAD", "config", "index", "refs/heads/main", "objects/ab/cdef", "objects/pack/p.pack", "modules/sub/objects/12/3456", "modules/sub/HEAD", "lfs/objects/aa/bb/oid", "hooks/pre-commit.sample"} {
		p := filepath.Join(root, ".git", filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := gitSurface([]string{root})
	var stamped []string
	for p := range before {
		rel, _ := filepath.Rel(filepath.Join(root, ".git"), p)
		stamped = append(stamped, filepath.ToSlash(rel))
	}
	slices.Sort(stamped)
	want := []string{"HEAD", "config", "hooks/pre-commit.sample", "index", "lfs/objects/aa", "modules/sub/HEAD", "modules/sub/objects/12", "objects/ab", "objects/pack", "refs/heads/main"}
	if !reflect.DeepEqual(stamped, want) {
		t.Fatalf("stamped %q, want %q", stamped, want)
	}

	after := gitSurface([]string{root})
	delete(after, filepath.Join(root, ".git", "index"))
	after[filepath.Join(root, ".git", "refs", "tags", "v1")] = fileStamp{size: 1}
	after[filepath.Join(root, ".git", "hooks", "pre-push")] = fileStamp{size: 1}
	after[filepath.Join(root, ".git", "logs", "HEAD")] = fileStamp{size: 1}
	got := gitChanges(before, after)
	wantChange := gitChange{code: []string{".git/hooks/pre-push (created)"}, refs: []string{"refs/tags/v1 (created)"}, other: []string{"index", "logs"}, more: 2}
	if !reflect.DeepEqual(got, wantChange) {
		t.Errorf("gitChanges = %+v, want %+v", got, wantChange)
	}
}

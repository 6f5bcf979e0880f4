package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func walkAll(t *testing.T, root *os.Root, ig *Ignorer, start string, opts WalkOptions) []string {
	t.Helper()
	var got []string
	err := Walk(context.Background(), root, ig, start, opts, func(rel string, d fs.DirEntry) error {
		s := rel
		if d.IsDir() {
			s += "/"
		}
		if d.Type()&fs.ModeSymlink != 0 {
			s += "@"
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return got
}

func TestWalkOrderIgnoreAndDepth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":     "*.log\nvendor/\n",
		".git/HEAD":      "ref\n",
		"b.txt":          "",
		"a/z.go":         "",
		"a/b.log":        "",
		"a/c/d.go":       "",
		"a-b/x":          "",
		"vendor/v.go":    "",
		"a/.gitignore":   "!b.log\n",
		"empty/":         "",
		"sub/.ignore":    "hidden\n",
		"sub/hidden/x":   "",
		"sub/visible.md": "",
	})
	root := openTestRoot(t, dir)
	ig := NewIgnorer(root)

	got := walkAll(t, root, ig, ".", WalkOptions{})
	want := []string{".gitignore", "a/", "a/.gitignore", "a/b.log", "a/c/", "a/c/d.go", "a/z.go", "a-b/", "a-b/x", "b.txt", "empty/", "sub/", "sub/.ignore", "sub/visible.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk(.) mismatch (-want +got):\n%s", diff)
	}

	got = walkAll(t, root, ig, ".", WalkOptions{MaxDepth: 1})
	want = []string{".gitignore", "a/", "a-b/", "b.txt", "empty/", "sub/"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk(., MaxDepth 1) mismatch (-want +got):\n%s", diff)
	}

	got = walkAll(t, root, ig, "a", WalkOptions{})
	want = []string{"a/.gitignore", "a/b.log", "a/c/", "a/c/d.go", "a/z.go"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk(a) mismatch (-want +got):\n%s", diff)
	}

	got = walkAll(t, root, ig, ".", WalkOptions{IncludeIgnored: true, MaxDepth: 1})
	want = []string{".gitignore", "a/", "a-b/", "b.txt", "empty/", "sub/", "vendor/"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk(., IncludeIgnored) mismatch (-want +got):\n%s", diff)
	}
}

func TestWalkSymlinksAreNotFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, dir, map[string]string{"d/f.txt": ""})
	writeTree(t, outside, map[string]string{"secret.txt": ""})
	for link, target := range map[string]string{
		"d/loop": dir,     // a loop back to the root
		"out":    outside, // out of the root
		"d/file": filepath.Join(dir, "d", "f.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Skip("symlinks not supported:", err)
		}
	}
	got := walkAll(t, openTestRoot(t, dir), nil, ".", WalkOptions{})
	want := []string{"d/", "d/f.txt", "d/file@", "d/loop@", "out@"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk mismatch (-want +got):\n%s", diff)
	}
}

func TestWalkSkipDirSkipAllAndCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/1": "", "a/2": "", "b/1": "", "b/2": "", "c/1": ""})
	root := openTestRoot(t, dir)

	var got []string
	err := Walk(context.Background(), root, nil, ".", WalkOptions{}, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		switch rel {
		case "a":
			return fs.SkipDir
		case "b/1":
			return fs.SkipDir // on a file: skip the rest of b
		case "c/1":
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Walk = %v, want nil", err)
	}
	if diff := cmp.Diff([]string{"a", "b", "b/1", "c", "c/1"}, got); diff != "" {
		t.Errorf("Walk with SkipDir/SkipAll mismatch (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = Walk(ctx, root, nil, ".", WalkOptions{}, func(rel string, d fs.DirEntry) error {
		n++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("Walk after cancel = %v after %d entries, want context.Canceled after 1", err, n)
	}

	boom := errors.New("boom")
	err = Walk(context.Background(), root, nil, ".", WalkOptions{}, func(string, fs.DirEntry) error { return boom })
	if !errors.Is(err, boom) {
		t.Errorf("Walk = %v, want the callback's error", err)
	}

	if err := Walk(context.Background(), root, nil, "missing", WalkOptions{}, func(string, fs.DirEntry) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Walk(missing) = %v, want fs.ErrNotExist", err)
	}
}

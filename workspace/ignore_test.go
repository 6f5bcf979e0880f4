package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/whale-ls/whale-ls/internal/testtree"
)

// writeTree creates files under dir; a name ending in "/" is a folder.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	testtree.Write(t, dir, files)
}

func openTestRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

func TestIgnorerRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":         "# comment\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/*.tmp\n**/cache\nspace\\ \n\\#hash\nlit{a,b}\r\n",
		".git/info/exclude":  "secret.txt\n",
		"sub/.gitignore":     "local.txt\n!top.txt\n/anch\n*.log\n!*.keep.log\n",
		"sub/deeper/.ignore": "!local.txt\nignored-by-dotignore\n",
		".ignore":            "dotignored\n",
		"x/.gitignore":       "*\n!*.go\n!*/\n",
	})
	ig := NewIgnorer(openTestRoot(t, dir))
	for _, tc := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{".", true, false},
		{".git", true, true},
		{".git/config", false, true},
		{"a/.git", false, true},
		{"app.log", false, true},
		{"deep/dir/app.log", false, true},
		{"keep.log", false, false},
		{"sub/keep.log", false, true},          // sub/.gitignore *.log wins over root !keep.log
		{"sub/x.keep.log", false, false},       // re-included in sub
		{"build", true, true},                  // folder pattern
		{"build", false, false},                // folder pattern does not match a file
		{"src/build", true, true},              // at any depth
		{"src/build/main.go", false, true},     // inside an ignored folder
		{"top.txt", false, true},               // anchored
		{"sub/top.txt", false, false},          // anchored to the root only (and re-included)
		{"docs/a/b/c.tmp", false, true},        // ** in the middle
		{"docs/c.tmp", false, true},            // ** matches zero folders
		{"other/c.tmp", false, false},          //
		{"a/b/cache", true, true},              // leading **
		{"space ", false, true},                // escaped trailing space
		{"#hash", false, true},                 // escaped hash
		{"lit{a,b}", false, true},              // braces are literal in gitignore
		{"lita", false, false},                 //
		{"secret.txt", false, true},            // .git/info/exclude
		{"sub/local.txt", false, true},         // nested .gitignore
		{"sub/deeper/local.txt", false, false}, // .ignore negation beats .gitignore
		{"sub/deeper/ignored-by-dotignore", false, true},
		{"sub/anch", false, true},
		{"sub/deeper/anch", false, false}, // anchored to sub/
		{"dotignored", false, true},       // .ignore
		{"x/a.txt", false, true},          // ignore everything ...
		{"x/a.go", false, false},          // ... but Go files
		{"x/y/a.go", false, false},        // ... in folders too
	} {
		if got := ig.Ignored(tc.rel, tc.isDir); got != tc.want {
			t.Errorf("Ignored(%q, %v) = %v, want %v", tc.rel, tc.isDir, got, tc.want)
		}
	}
}

func TestIgnorerNilRoot(t *testing.T) {
	t.Parallel()
	ig := NewIgnorer(nil)
	if ig.Ignored("a/b.txt", false) {
		t.Errorf("Ignored(a/b.txt) = true with no root, want false")
	}
	if !ig.Ignored("a/.git", true) {
		t.Errorf("Ignored(a/.git) = false, want true")
	}
}

func TestIgnorerSymlinkedIgnoreFileIsNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"rules": "*.go\n"})
	if err := os.Symlink(filepath.Join(outside, "rules"), filepath.Join(dir, ".gitignore")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	ig := NewIgnorer(openTestRoot(t, dir))
	if ig.Ignored("main.go", false) {
		t.Errorf("Ignored(main.go) = true: a symlinked .gitignore outside the root was read")
	}
}

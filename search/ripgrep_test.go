package search

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/workspace"
)

// genTree writes a deterministic pseudo-random tree of source-like files,
// with ignore files, hidden files and binary files, and returns its folder.
func genTree(t testing.TB, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	words := []string{"func", "main", "Handler", "serveHTTP", "ERR_NOT_FOUND", "HTTP_OK", "x", "y", "return",
		"if", "err", "!=", "nil", "{", "}", "(", ")", "content-type", "Content-Type", "CONTENT-TYPE", "TODO", "FIXME",
		" café ", " naïve ", "func serveHandler(", "func (s *T) fooHandler(", "err != nil", "nil != err", "_", "__init__", "a_b", "AB_CD", "ABC_DEF", "0x1F", "//", "/*", "*/", "\t", "  ", "foo.bar", "foo(bar)"}
	files := map[string]string{
		".gitignore":      "*.gen\nbuild/\n!keep.gen\n",
		"pkg/.gitignore":  "/local.txt\n*.tmp\n",
		"pkg/sub/.ignore": "!x.tmp\n",
	}
	dirs := []string{"", "pkg/", "pkg/sub/", "build/", "web/", "web/.hidden/", "deep/a/b/c/"}
	names := []string{"a.go", "b.txt", "c.gen", "keep.gen", "local.txt", "x.tmp", "y.tmp", ".dot", "d.md", "e.go"}
	for i := 0; i < 80; i++ {
		name := dirs[r.IntN(len(dirs))] + fmt.Sprintf("%d", i) + names[r.IntN(len(names))]
		var b strings.Builder
		nLines := r.IntN(60)
		for l := 0; l < nLines; l++ {
			nWords := r.IntN(12)
			for w := 0; w < nWords; w++ {
				if w > 0 && r.IntN(3) > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteByte('\n')
		}
		if r.IntN(10) == 0 {
			// No final newline.
			b.WriteString("func main() // last")
		}
		files[name] = b.String()
	}
	files["bin/blob.bin"] = "\x00\x01func main\n"
	files["pkg/local.txt"] = "func main\n"
	files["pkg/sub/local.txt"] = "func main\n"
	dir := t.TempDir()
	writeTree(t, dir, files)
	return dir
}

// TestGrepMatchesRipgrep compares the set of matching lines with ripgrep's
// on a generated tree. It is skipped when rg is not installed.
//
// It compares walking, from a file index (before and after its content
// filter read the files), and from the same index after files were
// created, changed, renamed, moved and deleted and an ignore file was
// edited (before and after the filter read them again).
func TestGrepMatchesRipgrep(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ripgrep (rg) is not installed; .ci/run installs it")
		}
		t.Skip("ripgrep (rg) is not installed; install it (Debian: apt-get install ripgrep) to compare with it")
	}
	dir := genTree(t, 1)
	root := openRoot(t, dir)
	t.Run("walk", func(t *testing.T) { compareWithRipgrep(t, rg, dir, root, nil) })
	x := NewIndex(root, dir, IndexOptions{})
	defer x.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := x.Wait(ctx)
	if runtime.GOOS == "linux" && st.State != IndexReady {
		t.Fatalf("index: %v", st)
	}
	t.Run("index", func(t *testing.T) { compareWithRipgrep(t, rg, dir, root, x) })
	contentsRead := func(t *testing.T) {
		if runtime.GOOS == "linux" {
			waitContents(t, x)
		}
	}
	t.Run("index, contents read", func(t *testing.T) { contentsRead(t); compareWithRipgrep(t, rg, dir, root, x) })
	changeTree(t, dir)
	t.Run("index after changes", func(t *testing.T) { compareWithRipgrep(t, rg, dir, root, x) })
	t.Run("index after changes, contents read", func(t *testing.T) { contentsRead(t); compareWithRipgrep(t, rg, dir, root, x) })
	if st := x.Status(); runtime.GOOS == "linux" && st.State != IndexReady {
		t.Errorf("index after changes: %v", st)
	}
}

// changeTree makes the kinds of change an index must follow in a tree from
// genTree: new files (from another generated tree), rewritten, renamed and
// deleted ones, a moved folder, a new ignore rule.
func changeTree(t *testing.T, dir string) {
	t.Helper()
	other := genTree(t, 2)
	n := 0
	filepath.WalkDir(other, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || n >= 30 {
			return err
		}
		rel, _ := filepath.Rel(other, p)
		if strings.HasSuffix(rel, ".gitignore") || strings.HasSuffix(rel, ".ignore") {
			return nil
		}
		b, _ := os.ReadFile(p)
		dst := filepath.Join(dir, "new", rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		n++
		return os.WriteFile(dst, b, 0o644)
	})
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, "/new/") && !strings.Contains(filepath.Base(p), "ignore") {
			files = append(files, p)
		}
		return err
	})
	slices.Sort(files)
	for i, p := range files {
		switch i % 5 {
		case 0:
			os.Remove(p)
		case 1:
			os.Rename(p, p+".moved.go")
		case 2:
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append([]byte("func main() {}\nTODO HTTP_OK\n"), b...), 0o644)
		}
	}
	if err := os.Rename(filepath.Join(dir, "deep/a"), filepath.Join(dir, "pkg/a")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("*.md\n")
	f.Close()
}

func compareWithRipgrep(t *testing.T, rg, dir string, root *os.Root, x *Index) {
	for _, tc := range []struct {
		pattern string
		icase   bool
		fixed   bool
	}{
		{pattern: "func main"},
		{pattern: "content-type", icase: true},
		{pattern: `func \w+Handler\(`},
		// Go's \b and \w are ASCII, ripgrep's Unicode: the generated tree keeps
		// non-ASCII words apart so that both agree.
		{pattern: `\b[A-Z]{3,}_[A-Z]+\b`},
		{pattern: `TODO|FIXME`},
		{pattern: `^func`},
		{pattern: `\)$`},
		{pattern: `café|naïve`},
		{pattern: `CAFÉ`, icase: true},
		{pattern: `foo(bar)`, fixed: true},
		{pattern: `foo.bar`},
		{pattern: `[xy]\s+[xy]`},
		{pattern: `(err|nil) != (nil|err)`},
		{pattern: `e{2,}|r{2}`},
		{pattern: `_+init_+`},
		{pattern: `HTTP_OK`, icase: true},
		{pattern: `^$`},
		{pattern: `[A-Z]{2}_[A-Z]{2}`},
		{pattern: `\b\w{12,}\b`},
		{pattern: `[(){}]{2}`},
		{pattern: `.`},
	} {
		args := []string{"--hidden", "--no-require-git", "--no-ignore-global", "-n", "--no-heading", "--with-filename", "--color", "never"}
		if tc.icase {
			args = append(args, "-i")
		}
		if tc.fixed {
			args = append(args, "-F")
		}
		args = append(args, "-e", tc.pattern, ".")
		cmd := exec.Command(rg, args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil && len(out) != 0 {
			t.Fatalf("rg %q: %v", tc.pattern, err)
		}
		var want []string
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			parts := strings.SplitN(strings.TrimPrefix(sc.Text(), "./"), ":", 3)
			want = append(want, filepath.ToSlash(parts[0])+":"+parts[1])
		}
		got := grepKeys(t, root, Request{Pattern: tc.pattern, CaseInsensitive: tc.icase, FixedStrings: tc.fixed, Index: x})
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 {
			t.Errorf("rg found nothing for %q: the generated tree does not exercise it", tc.pattern)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Grep(%q, icase=%v) differs from rg (-rg +whale):\n%s", tc.pattern, tc.icase, diff)
		}
	}

	// File names.
	cmd := exec.Command(rg, "--files", "--hidden", "--no-require-git", "--no-ignore-global", "-g", "*.go")
	cmd.Dir = dir
	out, _ := cmd.Output()
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			want = append(want, strings.TrimPrefix(l, "./"))
		}
	}
	l, err := Files(context.Background(), root, workspace.NewIgnorer(root), FilesRequest{Pattern: "**/*.go", Index: x, MaxResults: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(l.Paths)
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Files(**/*.go) differs from rg --files (-rg +whale):\n%s", diff)
	}
}

// waitContents applies the queued changes and waits until the content
// filter has read every file of the index.
func waitContents(t *testing.T, x *Index) IndexStatus {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		x.mu.Lock()
		x.drainLocked()
		x.mu.Unlock()
		st := x.Status()
		if st.State != IndexReady {
			t.Fatalf("index: %v", st)
		}
		if st.ContentsPending == 0 {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("the content filter still has %d files to read after 30 s: %v", st.ContentsPending, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

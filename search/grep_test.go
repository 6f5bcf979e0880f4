package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/internal/testtree"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/workspace"
)

// writeTree creates files under dir; a name ending in "/" is a folder.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	testtree.Write(t, dir, files)
}

func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// grepTree runs Grep on a fresh tree and returns "path:line" for every
// matching line.
func grepKeys(t *testing.T, root *os.Root, req Request) []string {
	t.Helper()
	req.MaxResults = 1 << 30
	res, err := Grep(context.Background(), root, workspace.NewIgnorer(root), req)
	if err != nil {
		t.Fatalf("Grep(%q): %v", req.Pattern, err)
	}
	var keys []string
	for _, f := range res.Files {
		for _, ln := range f.Lines {
			if ln.Match {
				keys = append(keys, fmt.Sprintf("%s:%d", f.Path, ln.Number))
			}
		}
	}
	return keys
}

func grepText(t *testing.T, root *os.Root, req Request) string {
	t.Helper()
	res, err := Grep(context.Background(), root, workspace.NewIgnorer(root), req)
	if err != nil {
		t.Fatalf("Grep(%q): %v", req.Pattern, err)
	}
	text, _ := res.Text()
	return text
}

func TestGrepRespectsIgnoreFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":        "*.gen.go\nout/\n",
		".git/info/exclude": "local/\n",
		".git/config":       "needle\n",
		"a.go":              "needle\n",
		"a.gen.go":          "needle\n",
		"out/x.go":          "needle\n",
		"local/x.go":        "needle\n",
		"pkg/.gitignore":    "!keep.gen.go\nskip.go\n",
		"pkg/keep.gen.go":   "needle\n",
		"pkg/skip.go":       "needle\n",
		"pkg/deep/skip.go":  "needle\n",
		"docs/.ignore":      "draft*\n",
		"docs/draft1.md":    "needle\n",
		"docs/final.md":     "needle\n",
	})
	got := grepKeys(t, openRoot(t, dir), Request{Pattern: "needle"})
	want := []string{"a.go:1", "docs/final.md:1", "pkg/keep.gen.go:1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Grep mismatch (-want +got):\n%s", diff)
	}
}

func TestGrepSkipsBinaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	late := strings.Repeat("x\n", 5000) + "\x00needle\n" // NUL after the first 8 KiB
	writeTree(t, dir, map[string]string{
		"text.txt":  "needle\n",
		"bin.dat":   "\x00\x01needle\n",
		"big.bin":   "\x00" + strings.Repeat("needle\n", 20000),
		"late.txt":  late,
		"utf16.txt": "n\x00e\x00e\x00d\x00l\x00e\x00",
	})
	got := grepKeys(t, openRoot(t, dir), Request{Pattern: "needle"})
	want := []string{"late.txt:5001", "text.txt:1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Grep mismatch (-want +got):\n%s", diff)
	}
}

func TestGrepSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, dir, map[string]string{"d/in.txt": "needle\n"})
	writeTree(t, outside, map[string]string{"secret.txt": "needle\n"})
	for link, target := range map[string]string{
		"d/loop":     dir,
		"d/loop2":    "..",
		"out":        outside,
		"outfile":    filepath.Join(outside, "secret.txt"),
		"d/samefile": filepath.Join(dir, "d", "in.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Skip("symlinks not supported:", err)
		}
	}
	root := openRoot(t, dir)
	got := grepKeys(t, root, Request{Pattern: "needle"})
	if diff := cmp.Diff([]string{"d/in.txt:1"}, got); diff != "" {
		t.Errorf("Grep mismatch (-want +got):\n%s", diff)
	}
	l, err := Files(context.Background(), root, nil, FilesRequest{Pattern: "*"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"d/in.txt"}, l.Paths); diff != "" {
		t.Errorf("Files mismatch (-want +got):\n%s", diff)
	}
	if _, err := Grep(context.Background(), root, nil, Request{Pattern: "needle", Path: "out"}); err == nil {
		t.Errorf("Grep(path=out) through a symlink out of the root succeeded, want an error")
	}
}

func TestGrepContextAtFileEdges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt":    "m1\nx2\nx3\nx4\nx5\nx6\nm7\nx8\nm9\nx10",
		"b.txt":    "m1\n",
		"c.txt":    "x1\nx2\nm3\n",
		"d.txt":    "m1",
		"empty.md": "",
	})
	got := grepText(t, openRoot(t, dir), Request{Pattern: "^m", Context: 2})
	want := strings.Join([]string{
		"a.txt:1:m1",
		"a.txt-2-x2",
		"a.txt-3-x3",
		"--",
		"a.txt-5-x5",
		"a.txt-6-x6",
		"a.txt:7:m7",
		"a.txt-8-x8",
		"a.txt:9:m9",
		"a.txt-10-x10",
		"",
		"b.txt:1:m1",
		"",
		"c.txt-1-x1",
		"c.txt-2-x2",
		"c.txt:3:m3",
		"",
		"d.txt:1:m1",
	}, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Grep text mismatch (-want +got):\n%s", diff)
	}
}

// Without context every line names its file and line: no "--" between
// distant matches, no blank line between files.
func TestGrepWithoutContextHasNoSeparators(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt": "m1\nx2\nx3\nm4\n",
		"b.txt": "m1\n",
	})
	got := grepText(t, openRoot(t, dir), Request{Pattern: "^m"})
	want := "a.txt:1:m1\na.txt:4:m4\nb.txt:1:m1"
	if got != want {
		t.Errorf("Grep text = %q, want %q", got, want)
	}
}

func TestGrepCapsAndMoreLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat("hit\n", 10)
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)

	text := grepText(t, root, Request{Pattern: "hit", MaxResults: 15})
	lines := strings.Split(text, "\n")
	if n := strings.Count(text, ":hit"); n != 15 {
		t.Errorf("content mode shows %d matching lines, want 15:\n%s", n, text)
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "35 more matching lines (3 more files) not shown") || !strings.Contains(last, "narrow") {
		t.Errorf("last line = %q, want the count of what is left out and how to narrow", last)
	}
	if !strings.HasPrefix(lines[0], "f0.txt:1:") || !strings.Contains(text, "f1.txt:5:hit") || strings.Contains(text, "f1.txt:6:") {
		t.Errorf("content mode did not show the first 15 lines in path order:\n%s", text)
	}

	text = grepText(t, root, Request{Pattern: "hit", Mode: ModeFiles, MaxResults: 2})
	want := "f0.txt\nf1.txt\n[3 more files not shown; narrow with path or include, or raise max_results]"
	if text != want {
		t.Errorf("files mode = %q, want %q", text, want)
	}
	text = grepText(t, root, Request{Pattern: "hit", Mode: ModeCount})
	if !strings.HasPrefix(text, "f0.txt: 10\nf1.txt: 10\n") || strings.Contains(text, "more") {
		t.Errorf("count mode = %q", text)
	}
	// Past the cap, files and count modes keep no record of a file, only
	// the totals.
	res, err := Grep(context.Background(), root, nil, Request{Pattern: "hit", Mode: ModeCount, MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 || res.Files[0].Path != "f0.txt" || res.Files[1].Path != "f1.txt" || res.FileCount != 5 || res.Matches != 50 {
		t.Errorf("count mode with a cap of 2 kept %+v, %d files, %d matches; want f0.txt and f1.txt of 5 files, 50 matches", res.Files, res.FileCount, res.Matches)
	}
	if text, _ := res.Text(); !strings.HasSuffix(text, "[3 more files (30 matching lines) not shown; narrow with path or include, or raise max_results]") {
		t.Errorf("count mode with a cap of 2 = %q", text)
	}

	// Default caps: 200 lines.
	writeTree(t, dir, map[string]string{"many.txt": strings.Repeat("many\n", 250)})
	text = grepText(t, root, Request{Pattern: "many"})
	if n := strings.Count(text, ":many"); n != DefaultMaxLines || !strings.HasSuffix(text, "[50 more matching lines not shown; narrow with path, include or a more specific pattern, or raise max_results]") {
		t.Errorf("default cap shows %d lines, ends %q", n, text[max(0, len(text)-120):])
	}
}

func TestGrepCRLF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"w.txt": "one end\r\ntwo\r\nthree end\r\n"})
	got := grepText(t, openRoot(t, dir), Request{Pattern: `end$`, Context: 1})
	want := "w.txt:1:one end\nw.txt-2-two\nw.txt:3:three end"
	if got != want {
		t.Errorf("Grep(end$) on CRLF = %q, want %q", got, want)
	}
}

func TestGrepInvalidUTF8(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"latin1.txt": "caf\xe9 needle \xff\xfe\nok\n"})
	got := grepText(t, openRoot(t, dir), Request{Pattern: `needle`})
	if !utf8.ValidString(got) || got != "latin1.txt:1:caf\uFFFD needle \uFFFD" {
		t.Errorf("Grep on invalid UTF-8 = %q, want valid UTF-8 with U+FFFD", got)
	}
	got = grepText(t, openRoot(t, dir), Request{Pattern: `caf. needle`})
	if !strings.HasPrefix(got, "latin1.txt:1:") {
		t.Errorf("Grep(caf. needle) = %q, want the line: an invalid byte matches '.'", got)
	}
}

func TestGrepLongLinesAreCutAroundTheMatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("a", 3000) + "NEEDLE" + strings.Repeat("é", 2000)
	writeTree(t, dir, map[string]string{"min.js": long + "\n"})
	got := grepText(t, openRoot(t, dir), Request{Pattern: `NEEDLE`})
	if !strings.Contains(got, "NEEDLE") || len(got) > MaxLineLen+40 || !strings.Contains(got, ":1:…a") || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("long line shown as %q (%d bytes)", got, len(got))
	}
}

func TestGrepOverlay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"open.go":    "package a\n// old text\n",
		"closed.go":  "// old text\n",
		"ignored/x":  "",
		".gitignore": "ignored/\n",
	})
	root := openRoot(t, dir)
	overlay := map[string][]byte{
		"open.go":      []byte("package a\n\n// new text\n"),
		"unsaved.go":   []byte("// new text, not on disk yet\n"),
		"ignored/y.go": []byte("// new text\n"),
	}
	got := grepKeys(t, root, Request{Pattern: "new text", Overlay: overlay})
	if diff := cmp.Diff([]string{"open.go:3", "unsaved.go:1"}, got); diff != "" {
		t.Errorf("Grep(new text) mismatch (-want +got):\n%s", diff)
	}
	got = grepKeys(t, root, Request{Pattern: "old text", Overlay: overlay})
	if diff := cmp.Diff([]string{"closed.go:1"}, got); diff != "" {
		t.Errorf("Grep(old text) mismatch (-want +got):\n%s", diff)
	}
	got = grepKeys(t, root, Request{Pattern: "new", Path: "open.go", Overlay: overlay})
	if diff := cmp.Diff([]string{"open.go:3"}, got); diff != "" {
		t.Errorf("Grep(path=open.go) mismatch (-want +got):\n%s", diff)
	}
	l, err := Files(context.Background(), root, workspace.NewIgnorer(root), FilesRequest{Pattern: "*.go", Overlay: overlay})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"closed.go", "open.go", "unsaved.go"}, l.Paths); diff != "" {
		t.Errorf("Files(*.go) mismatch (-want +got):\n%s", diff)
	}
}

func TestGrepCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = strings.Repeat("some line of text\n", 200)
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Grep(ctx, root, nil, Request{Pattern: `text`}); !errors.Is(err, context.Canceled) {
		t.Errorf("Grep with a cancelled context = %v, want context.Canceled", err)
	}

	// Cancel from inside the search, after the first file: the search must
	// stop and report the cancellation rather than finish.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var visited int
	req := Request{Pattern: `text`, Mode: ModeFiles}
	m, _ := compilePattern(req.Pattern, false, false)
	_ = m
	_, err := parallelWalk(ctx, walkConfig{root: root, start: ".", visit: func(int, dirHandle, string, string) {
		visited++
		cancel()
	}, workers: 1})
	if !errors.Is(err, context.Canceled) || visited >= 400 {
		t.Errorf("walk cancelled after the first file = %v after %d files, want context.Canceled well before 400", err, visited)
	}
	if _, err := Files(ctx, root, nil, FilesRequest{Pattern: "*"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Files with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestGrepInvalidPattern(t *testing.T) {
	t.Parallel()
	root := openRoot(t, t.TempDir())
	for _, tc := range []struct {
		pattern string
		literal bool
	}{
		{"foo(", true},
		{"a[0", true},
		{"*ptr", true},
		{`\w+(`, false},
		{`(?z)`, false},
	} {
		_, err := Grep(context.Background(), root, nil, Request{Pattern: tc.pattern})
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("Grep(%q) = %v, want a *PatternError", tc.pattern, err)
			continue
		}
		if pe.LooksLiteral != tc.literal {
			t.Errorf("Grep(%q).LooksLiteral = %v, want %v", tc.pattern, pe.LooksLiteral, tc.literal)
		}
		if !strings.Contains(pe.Error(), tc.pattern) {
			t.Errorf("error %q does not quote the pattern", pe.Error())
		}
		if _, err := Grep(context.Background(), root, nil, Request{Pattern: tc.pattern, FixedStrings: true}); err != nil {
			t.Errorf("Grep(%q, fixed) = %v, want nil", tc.pattern, err)
		}
	}
	var ge *GlobError
	if _, err := Grep(context.Background(), root, nil, Request{Pattern: "x", Include: "*.{go"}); !errors.As(err, &ge) {
		t.Errorf("Grep(include=*.{go) = %v, want a *GlobError", err)
	}
	if _, err := Grep(context.Background(), root, nil, Request{Pattern: "x", Path: "missing"}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Grep(path=missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestGrepIncludeAndOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.go":          "Hello\n",
		"web/b.ts":      "hello\n",
		"web/c.tsx":     "hello\n",
		"web/d.js":      "hello\n",
		"web/sub/e.ts":  "hello.x\n",
		"docs/hello.md": "hellox\n",
	})
	root := openRoot(t, dir)
	for _, tc := range []struct {
		req  Request
		want []string
	}{
		{Request{Pattern: "hello"}, []string{"docs/hello.md:1", "web/b.ts:1", "web/c.tsx:1", "web/d.js:1", "web/sub/e.ts:1"}},
		{Request{Pattern: "hello", CaseInsensitive: true, Include: "*.go"}, []string{"a.go:1"}},
		{Request{Pattern: "hello", Include: "**/*.{ts,tsx}"}, []string{"web/b.ts:1", "web/c.tsx:1", "web/sub/e.ts:1"}},
		{Request{Pattern: "hello", Include: "*.js, docs/*"}, []string{"docs/hello.md:1", "web/d.js:1"}},
		{Request{Pattern: "hello", Path: "web", Include: "sub/*.ts"}, []string{"web/sub/e.ts:1"}},
		{Request{Pattern: "hello.", FixedStrings: true}, []string{"web/sub/e.ts:1"}},
		{Request{Pattern: "hello.", Path: "web/sub"}, []string{"web/sub/e.ts:1"}},
		{Request{Pattern: `^hello\b`}, []string{"web/b.ts:1", "web/c.tsx:1", "web/d.js:1", "web/sub/e.ts:1"}},
		{Request{Pattern: `x$|^H`}, []string{"a.go:1", "docs/hello.md:1", "web/sub/e.ts:1"}},
	} {
		got := grepKeys(t, root, tc.req)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Grep(%+v) mismatch (-want +got):\n%s", tc.req, diff)
		}
	}
}

func TestFilesGlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"main.go":               "",
		"cmd/tool/main.go":      "",
		"cmd/tool/main_test.go": "",
		"pkg/a_test.go":         "",
		"web/x.ts":              "",
		"web/y.tsx":             "",
		".gitignore":            "dist/\n",
		"dist/main.go":          "",
	})
	root := openRoot(t, dir)
	for _, tc := range []struct {
		req  FilesRequest
		want []string
	}{
		{FilesRequest{Pattern: "main.go"}, []string{"cmd/tool/main.go", "main.go"}},
		{FilesRequest{Pattern: "**/*_test.go"}, []string{"cmd/tool/main_test.go", "pkg/a_test.go"}},
		{FilesRequest{Pattern: "*.{ts,tsx}"}, []string{"web/x.ts", "web/y.tsx"}},
		{FilesRequest{Pattern: "cmd/**/*.go"}, []string{"cmd/tool/main.go", "cmd/tool/main_test.go"}},
		{FilesRequest{Pattern: "tool/*.go", Path: "cmd"}, []string{"cmd/tool/main.go", "cmd/tool/main_test.go"}},
		{FilesRequest{Pattern: "nothing*"}, nil},
		{FilesRequest{Pattern: "web/"}, []string{"web/x.ts", "web/y.tsx"}},
	} {
		l, err := Files(context.Background(), root, workspace.NewIgnorer(root), tc.req)
		if err != nil {
			t.Fatalf("Files(%+v): %v", tc.req, err)
		}
		if diff := cmp.Diff(tc.want, l.Paths); diff != "" {
			t.Errorf("Files(%+v) mismatch (-want +got):\n%s", tc.req, diff)
		}
	}
	l, _ := Files(context.Background(), root, nil, FilesRequest{Pattern: "*.go", MaxResults: 1})
	if text, _ := l.Text(); !strings.HasSuffix(text, "[4 more files not shown; narrow with path or a more specific pattern, or raise max_results]") {
		t.Errorf("Files text = %q, want a final line with 4 more", text)
	}
	if len(l.Paths) != 1 || l.Total != 5 {
		t.Errorf("Files with a cap of 1 kept %q of %d; want the first and a total of 5", l.Paths, l.Total)
	}
}

func TestGrepSkipsTooLargeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"small.log": "needle\n",
		"huge.log":  "needle\n" + strings.Repeat("x", 5<<20),
	})
	root := openRoot(t, dir)
	text := grepText(t, root, Request{Pattern: "needle", maxFileSize: 4 << 20})
	if want := "small.log:1:needle\n[not searched, 4 MiB or larger: huge.log; search such a file with shell_run (e.g. grep -n)]"; text != want {
		t.Errorf("Grep = %q, want %q", text, want)
	}
	text = grepText(t, root, Request{Pattern: "needle", Path: "huge.log", maxFileSize: 4 << 20})
	if !strings.HasPrefix(text, "No matches") || !strings.Contains(text, "not searched") {
		t.Errorf("Grep(path=huge.log) = %q, want no matches and a note that it was not searched", text)
	}
}

func TestGrepDeepWideTreesConcurrently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	deep := ""
	for i := range 60 {
		deep += fmt.Sprintf("d%d/", i)
		files[deep+"f.txt"] = "needle\n"
	}
	for i := range 300 {
		files[fmt.Sprintf("wide/w%03d/f.txt", i)] = "needle\n"
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)
	ig := workspace.NewIgnorer(root)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			res, err := Grep(context.Background(), root, ig, Request{Pattern: "needle", Mode: ModeFiles})
			if err == nil && (res.FileCount != 360 || len(res.Files) != DefaultMaxFiles) {
				err = fmt.Errorf("Grep found %d files and kept %d, want 360 and the first %d", res.FileCount, len(res.Files), DefaultMaxFiles)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	res, err := Grep(context.Background(), root, ig, Request{Pattern: "needle", Mode: ModeFiles, MaxResults: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 360 {
		t.Fatalf("Grep with no cap kept %d files, want 360", len(res.Files))
	}
	for i := 1; i < len(res.Files); i++ {
		if comparePaths(res.Files[i-1].Path, res.Files[i].Path) >= 0 {
			t.Fatalf("files out of order: %q before %q", res.Files[i-1].Path, res.Files[i].Path)
		}
	}
}

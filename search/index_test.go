//go:build linux

package search

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/internal/syncbuf"
	"github.com/whale-ls/whale-ls/workspace"
)

// startIndex indexes dir and waits until the index is ready.
func startIndex(t *testing.T, dir string, o IndexOptions) (*os.Root, *Index) {
	t.Helper()
	root := openRoot(t, dir)
	x := NewIndex(root, dir, o)
	t.Cleanup(x.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if st := x.Wait(ctx); st.State != IndexReady && o.MaxWatches == 0 {
		t.Fatalf("index not ready: %v", st)
	}
	return root, x
}

// bothWays lists every file (search_files "*") and greps pat, once from the
// index and once by walking, and fails unless both agree; it returns the
// index's answers.
func bothWays(t *testing.T, root *os.Root, x *Index, pat string) (files []string, matches []string) {
	t.Helper()
	ctx := context.Background()
	var lists [2][]string
	var greps [2][]string
	for i, ix := range []*Index{x, nil} {
		l, err := Files(ctx, root, workspace.NewIgnorer(root), FilesRequest{Pattern: "*", Index: ix, MaxResults: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		lists[i] = l.Paths
		res, err := Grep(ctx, root, workspace.NewIgnorer(root), Request{Pattern: pat, Mode: ModeFiles, Index: ix, MaxResults: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			greps[i] = append(greps[i], f.Path)
		}
	}
	if d := cmp.Diff(lists[1], lists[0]); d != "" {
		t.Fatalf("Files from the index differ from walking (-walk +index):\n%s", d)
	}
	if d := cmp.Diff(greps[1], greps[0]); d != "" {
		t.Fatalf("Grep(%q) from the index differs from walking (-walk +index):\n%s", pat, d)
	}
	return lists[0], greps[0]
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	writeTree(t, dir, map[string]string{rel: text})
}

func TestIndexFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":    "*.log\nbuild/\n",
		"a.go":          "package a // needle\n",
		"pkg/b.go":      "package b\n",
		"pkg/c.log":     "needle\n",
		"build/out.go":  "needle\n",
		"deep/x/y/z.go": "needle\n",
	})
	root, x := startIndex(t, dir, IndexOptions{})
	// check answers right after the step (the content filter not yet
	// told of the change), then once the filter has read the changed files.
	check := func(step string, wantFiles, wantMatches []string) {
		t.Helper()
		for _, when := range []string{"", ", contents read"} {
			files, matches := bothWays(t, root, x, "needle")
			if d := cmp.Diff(wantFiles, files); d != "" {
				t.Errorf("%s%s: files (-want +got):\n%s", step, when, d)
			}
			if d := cmp.Diff(wantMatches, matches); d != "" {
				t.Errorf("%s%s: matches (-want +got):\n%s", step, when, d)
			}
			waitContents(t, x)
		}
	}
	check("start", []string{".gitignore", "a.go", "deep/x/y/z.go", "pkg/b.go"}, []string{"a.go", "deep/x/y/z.go"})

	write(t, dir, "pkg/new.go", "needle\n")
	write(t, dir, "pkg/skip.log", "needle\n")
	check("create", []string{".gitignore", "a.go", "deep/x/y/z.go", "pkg/b.go", "pkg/new.go"}, []string{"a.go", "deep/x/y/z.go", "pkg/new.go"})

	write(t, dir, "pkg/b.go", "package b // needle\n")
	write(t, dir, "a.go", "package a\n")
	check("change", []string{".gitignore", "a.go", "deep/x/y/z.go", "pkg/b.go", "pkg/new.go"}, []string{"deep/x/y/z.go", "pkg/b.go", "pkg/new.go"})

	if err := os.Rename(filepath.Join(dir, "pkg/new.go"), filepath.Join(dir, "renamed.go")); err != nil {
		t.Fatal(err)
	}
	check("rename file", []string{".gitignore", "a.go", "deep/x/y/z.go", "pkg/b.go", "renamed.go"}, []string{"deep/x/y/z.go", "pkg/b.go", "renamed.go"})

	if err := os.Rename(filepath.Join(dir, "deep/x"), filepath.Join(dir, "pkg/moved")); err != nil {
		t.Fatal(err)
	}
	check("move folder", []string{".gitignore", "a.go", "pkg/b.go", "pkg/moved/y/z.go", "renamed.go"}, []string{"pkg/b.go", "pkg/moved/y/z.go", "renamed.go"})
	// The moved folder is watched at its new place.
	write(t, dir, "pkg/moved/y/w.go", "needle\n")
	check("write in moved folder", []string{".gitignore", "a.go", "pkg/b.go", "pkg/moved/y/w.go", "pkg/moved/y/z.go", "renamed.go"}, []string{"pkg/b.go", "pkg/moved/y/w.go", "pkg/moved/y/z.go", "renamed.go"})

	outside := t.TempDir()
	if err := os.Rename(filepath.Join(dir, "pkg/moved"), filepath.Join(outside, "moved")); err != nil {
		t.Fatal(err)
	}
	check("move folder out", []string{".gitignore", "a.go", "pkg/b.go", "renamed.go"}, []string{"pkg/b.go", "renamed.go"})
	// Changes in a folder moved out are not reported any more.
	write(t, outside, "moved/y/late.go", "needle\n")
	write(t, outside, "in/q.go", "needle\n")
	if err := os.Rename(filepath.Join(outside, "in"), filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	check("move folder in", []string{".gitignore", "a.go", "in/q.go", "pkg/b.go", "renamed.go"}, []string{"in/q.go", "pkg/b.go", "renamed.go"})

	// A new folder with files written at once, before the index could
	// watch it.
	if err := os.MkdirAll(filepath.Join(dir, "n1/n2/n3"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "n1/n2/n3/deep.go", "needle\n")
	check("new tree", []string{".gitignore", "a.go", "in/q.go", "n1/n2/n3/deep.go", "pkg/b.go", "renamed.go"}, []string{"in/q.go", "n1/n2/n3/deep.go", "pkg/b.go", "renamed.go"})

	if err := os.RemoveAll(filepath.Join(dir, "n1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "renamed.go")); err != nil {
		t.Fatal(err)
	}
	check("delete", []string{".gitignore", "a.go", "in/q.go", "pkg/b.go"}, []string{"in/q.go", "pkg/b.go"})

	// Symlinks are never listed, as when walking.
	if err := os.Symlink("a.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	check("symlink", []string{".gitignore", "a.go", "in/q.go", "pkg/b.go"}, []string{"in/q.go", "pkg/b.go"})
	if st := x.Status(); st.State != IndexReady || st.Files != 4 {
		t.Errorf("Status() = %+v, want ready with 4 files", st)
	}
}

func TestIndexIgnoreRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":       "*.gen\n",
		"a.gen":            "x\n",
		"keep.go":          "x\n",
		"sub/.ignore":      "!b.gen\n",
		"sub/b.gen":        "x\n",
		"sub/c.gen":        "x\n",
		"vendor/v.go":      "x\n",
		".git/info/-":      "",
		".git/config":      "x\n",
		"other/.gitignore": "",
		"other/o.go":       "x\n",
	})
	root, x := startIndex(t, dir, IndexOptions{})
	want := []string{".gitignore", "keep.go", "other/.gitignore", "other/o.go", "sub/.ignore", "sub/b.gen", "vendor/v.go"}
	if files, _ := bothWays(t, root, x, "x"); !cmp.Equal(files, want) {
		t.Fatalf("start: files = %q, want %q", files, want)
	}
	// A new ignore rule at the root hides a folder; a negation below
	// brings a file back.
	write(t, dir, ".gitignore", "*.gen\nvendor/\n")
	write(t, dir, "other/.gitignore", "o.go\n")
	want = []string{".gitignore", "keep.go", "other/.gitignore", "sub/.ignore", "sub/b.gen"}
	if files, _ := bothWays(t, root, x, "x"); !cmp.Equal(files, want) {
		t.Fatalf("after editing ignore files: files = %q, want %q", files, want)
	}
	if err := os.Remove(filepath.Join(dir, "other/.gitignore")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".git/info/exclude", "keep.go\n")
	want = []string{".gitignore", "other/o.go", "sub/.ignore", "sub/b.gen"}
	if files, _ := bothWays(t, root, x, "x"); !cmp.Equal(files, want) {
		t.Fatalf("after .git/info/exclude: files = %q, want %q", files, want)
	}
	// A new file in a folder that is ignored stays out.
	write(t, dir, "vendor/w.go", "x\n")
	if files, _ := bothWays(t, root, x, "x"); !cmp.Equal(files, want) {
		t.Fatalf("after writing in an ignored folder: files = %q, want %q", files, want)
	}
	// Searching inside an ignored folder by its path walks it, as before.
	l, err := Files(context.Background(), root, workspace.NewIgnorer(root), FilesRequest{Pattern: "*", Path: "vendor", Index: x})
	if err != nil || len(l.Paths) != 2 {
		t.Fatalf("Files(vendor) = %v, %v; want the 2 files", l, err)
	}
}

func TestIndexWatchLimitFallsBack(t *testing.T) {
	dir := t.TempDir()
	for i := range 10 {
		write(t, dir, fmt.Sprintf("d%d/f.go", i), "needle\n")
	}
	var logBuf syncbuf.Buffer
	root, x := startIndex(t, dir, IndexOptions{MaxWatches: 5, Log: newTestLogger(&logBuf)})
	st := x.Wait(context.Background())
	if st.State != IndexWalking || !strings.Contains(st.Reason, "watch limit") {
		t.Fatalf("Status = %+v, want walking because of the watch limit", st)
	}
	if n := strings.Count(logBuf.String(), "file index off"); n != 1 {
		t.Errorf("log has %d lines about the index turning off, want 1:\n%s", n, logBuf.String())
	}
	// Searches still answer, by walking.
	files, _ := bothWays(t, root, x, "needle")
	if len(files) != 10 {
		t.Errorf("files = %q, want 10", files)
	}

	// A limit reached later, by a new folder, turns the index off too.
	dir2 := t.TempDir()
	write(t, dir2, "a/f.go", "x\n")
	root2, x2 := startIndex(t, dir2, IndexOptions{MaxWatches: 3})
	if st := x2.Status(); st.State != IndexReady {
		t.Fatalf("Status = %+v, want ready", st)
	}
	write(t, dir2, "b/c/g.go", "x\n")
	files, _ = bothWays(t, root2, x2, "x")
	if want := []string{"a/f.go", "b/c/g.go"}; !cmp.Equal(files, want) {
		t.Errorf("files = %q, want %q", files, want)
	}
	if st := x2.Status(); st.State != IndexWalking || !strings.Contains(st.Reason, "after 3 folders") {
		t.Errorf("Status = %+v, want walking after 3 folders", st)
	}
}

func TestIndexQueueOverflowRebuilds(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.go", "needle\n")
	hold := make(chan struct{})
	held := make(chan struct{}, 1)
	var logBuf syncbuf.Buffer
	o := IndexOptions{Log: newTestLogger(&logBuf)}
	o.beforeDrain = func() {
		select {
		case held <- struct{}{}:
		default:
		}
		<-hold
	}
	root, x := startIndex(t, dir, o)
	// The reader is held back; more changes than the kernel queues
	// (fs.inotify.max_queued_events) overflow it for real.
	limit := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		fmt.Sscan(string(b), &limit)
	}
	if limit > 200000 {
		t.Skipf("fs.inotify.max_queued_events is %d: too many files to write to overflow it", limit)
	}
	write(t, dir, "first.go", "needle\n")
	<-held
	for i := 0; i <= limit/2+10; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	write(t, dir, "last.go", "needle\n")
	close(hold)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for x.Status().Rebuilds == 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	st := x.Wait(ctx)
	if st.State != IndexReady || st.Rebuilds != 1 || !strings.Contains(logBuf.String(), "overflowed") {
		t.Fatalf("Status = %+v, want ready again after an overflow; log:\n%s", st, logBuf.String())
	}
	if !strings.Contains(logBuf.String(), "file index being rebuilt") {
		t.Errorf("the log does not say the index is being rebuilt:\n%s", logBuf.String())
	}
	_, matches := bothWays(t, root, x, "needle")
	if want := []string{"a.go", "first.go", "last.go"}; !cmp.Equal(matches, want) {
		t.Errorf("matches = %q, want %q", matches, want)
	}
}

func TestIndexCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	write(t, dir, "a/b.go", "x\n")
	for range 5 {
		root := openRoot(t, dir)
		x := NewIndex(root, dir, IndexOptions{})
		x.Wait(context.Background())
		x.Close()
		// Closing during a build as well.
		x = NewIndex(root, dir, IndexOptions{})
		x.Close()
		if st := x.Status(); st.State != IndexClosed {
			t.Fatalf("Status after Close = %v", st)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestIndexMemory measures what the index and its content filter cost on
// the heap per file beyond the bytes of the names, every file with a
// content of its own (so each has a blob), and fails above 105 bytes (main
// before the filters left the heap took 187); and checks that the
// filters' bits, kept outside the heap, stay within the bits the status
// reports plus one slab.
func TestIndexMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10000 files")
	}
	if raceDetector {
		t.Skip("the race detector's allocations change what the heap holds")
	}
	const n = 10000
	dir := t.TempDir()
	names := 0
	for d := range 100 {
		sub := fmt.Sprintf("dir%03d/sub", d)
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		names += len(sub)
		for f := range 100 {
			name := fmt.Sprintf("file_%04d.go", f)
			if err := os.WriteFile(filepath.Join(dir, sub, name), fmt.Appendf(nil, "package p%d_%d\n", d, f), 0o644); err != nil {
				t.Fatal(err)
			}
			names += len(name)
		}
	}
	root := openRoot(t, dir)
	var m0, m1 runtime.MemStats
	// Twice: the first moves the pooled read buffers to the pool's
	// victim cache, where they still count; the second frees them.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m0)
	x := NewIndex(root, dir, IndexOptions{})
	defer x.Close()
	if st := x.Wait(context.Background()); st.State != IndexReady || st.Files != n {
		t.Fatalf("Status = %+v", st)
	}
	st := waitContents(t, x)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	x.mu.Lock()
	blobs, slabs := x.content.byKey.n, x.content.store.bytes()
	x.mu.Unlock()
	per := (float64(m1.HeapAlloc) - float64(m0.HeapAlloc) - float64(names)) / n
	t.Logf("index and filter: %.0f heap bytes per file beyond %d bytes of names (%d files in 200 folders, %d contents); filters %d bytes in %d bytes of slabs",
		per, names, n, blobs, st.FilterBytes, slabs)
	if blobs != n {
		t.Errorf("%d contents, want %d", blobs, n)
	}
	if per > 105 {
		t.Errorf("the index costs %.0f heap bytes per file beyond the names, want at most 105", per)
	}
	if slabs > st.FilterBytes+slabWords*8 {
		t.Errorf("the filters take %d bytes of slabs for %d bytes of bits", slabs, st.FilterBytes)
	}
	runtime.KeepAlive(x)
}

func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// TestIndexFillsSizes: sizes, left out of the build, are
// filled in soon after it, and a file too large to search is then named
// without being read.
func TestIndexFillsSizes(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/small.txt": "x\n", "a/big.txt": strings.Repeat("x\n", 600), "b.txt": "xyz\n"})
	root, x := startIndex(t, dir, IndexOptions{})
	want := map[string]int64{"a/small.txt": 2, "a/big.txt": 1200, "b.txt": 4}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := map[string]int64{}
		dirs, _ := x.listing(".", nil, nil)
		for _, d := range dirs {
			for _, f := range d.files {
				if f.size < 0 {
					continue
				}
				got[joinRel(d.rel, f.name)] = f.size
			}
		}
		if cmp.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sizes = %v, want %v", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	res, err := Grep(context.Background(), root, workspace.NewIgnorer(root), Request{Pattern: "x", Index: x, maxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(res.TooLarge, []string{"a/big.txt"}) || len(res.Files) != 2 {
		t.Errorf("Grep with a 1000-byte limit: too large %q, %d files; want a/big.txt and 2 files", res.TooLarge, len(res.Files))
	}
}

// TestIndexListsInPathOrder checks that the index lists files in the order
// a sorted walk gives (Files then need not sort), with files and folders of
// one folder interleaved by name.
func TestIndexListsInPathOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, p := range []string{"a-b/x", "a/z", "a/b/c", "a.go", "B", "a/b.go", "a/b-c/d", "a/b/c.d/e", "a/a", "a/c/d", "Z/y", "_"} {
		files[p] = "x\n"
	}
	writeTree(t, dir, files)
	root, x := startIndex(t, dir, IndexOptions{})
	l, err := Files(context.Background(), root, workspace.NewIgnorer(root), FilesRequest{Pattern: "*", Index: x})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(l.Paths)
	slices.SortFunc(want, comparePaths)
	if d := cmp.Diff(want, l.Paths); d != "" || len(want) != len(files) {
		t.Errorf("Files from the index, not in path order (-sorted +listed):\n%s", d)
	}
}

package search

import (
	"context"
	"hash/maphash"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/workspace"
)

// goSrcRoot opens the Go toolchain's source tree, the benchmark corpus
// shared with bench/search/run.sh.
func goSrcRoot(b *testing.B) *os.Root {
	b.Helper()
	dir := goSrcDir(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Skipf("Go source tree not available: %v", err)
	}
	b.Cleanup(func() { root.Close() })
	return root
}

func benchGrep(b *testing.B, req Request) {
	root := goSrcRoot(b)
	req.MaxResults = 1 << 30
	b.ResetTimer()
	for b.Loop() {
		res, err := Grep(context.Background(), root, workspace.NewIgnorer(root), req)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Files) == 0 {
			b.Fatal("no matches")
		}
	}
}

func BenchmarkGrepLiteral(b *testing.B) { benchGrep(b, Request{Pattern: "func main"}) }

func BenchmarkGrepCaseInsensitiveLiteral(b *testing.B) {
	benchGrep(b, Request{Pattern: "content-type", CaseInsensitive: true})
}

func BenchmarkGrepRegexWithLiteral(b *testing.B) {
	benchGrep(b, Request{Pattern: `func \w+Handler\(`})
}

func BenchmarkGrepRegexNoLiteral(b *testing.B) {
	benchGrep(b, Request{Pattern: `\b[A-Z]{3,}_[A-Z]+\b`})
}

func BenchmarkGrepAlternation(b *testing.B) {
	benchGrep(b, Request{Pattern: `TODO|FIXME`})
}

func BenchmarkFiles(b *testing.B) {
	root := goSrcRoot(b)
	for b.Loop() {
		l, err := Files(context.Background(), root, workspace.NewIgnorer(root), FilesRequest{Pattern: "**/*_test.go"})
		if err != nil || len(l.Paths) == 0 {
			b.Fatal(err, len(l.Paths))
		}
	}
}

// BenchmarkFilesIndexed is BenchmarkFiles answered from a file index whose
// content filter is done (it would compete for the processor otherwise).
func BenchmarkFilesIndexed(b *testing.B) {
	root := goSrcRoot(b)
	x := NewIndex(root, "src", IndexOptions{})
	defer x.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if st := x.Wait(ctx); st.State != IndexReady {
		b.Skipf("no file index: %v", st)
	}
	for x.Status().ContentsPending > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	for b.Loop() {
		l, err := Files(context.Background(), root, workspace.NewIgnorer(root), FilesRequest{Pattern: "**/*_test.go", Index: x})
		if err != nil || len(l.Paths) == 0 {
			b.Fatal(err, len(l.Paths))
		}
		l.Text()
	}
}

// BenchmarkScanInMemory times matching alone, without the walk and reads:
// the Go source tree's text files are loaded once.
func BenchmarkScanInMemory(b *testing.B) {
	var corpus [][]byte
	size := 0
	dir := goSrcDir(b)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && !isBinary(data) {
			corpus = append(corpus, data)
			size += len(data)
		}
		return nil
	})
	if len(corpus) == 0 {
		b.Skip("Go source tree not available")
	}
	for _, tc := range []struct {
		name, pattern string
		icase         bool
	}{
		{"literal", "func main", false},
		{"icase-literal", "content-type", true},
		{"regex-literal", `func \w+Handler\(`, false},
		{"regex-classes", `\b[A-Z]{3,}_[A-Z]+\b`, false},
		{"alternation", `TODO|FIXME`, false},
		{"empty-call", `\w+\(\)$`, false},
		{"classes-only", `[A-Z]{3}\d`, false},
		{"no-finder", `\b\w{30,}\b`, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m, err := compilePattern(tc.pattern, false, tc.icase)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, data := range corpus {
					m.scan(context.Background(), data, false, 0, DefaultMaxLines)
				}
			}
		})
	}
}

// BenchmarkContentFilter is the content indexer's work per file of the Go
// source tree, the files read once beforehand: its trigrams, their filter
// and the content's hash.
func BenchmarkContentFilter(b *testing.B) {
	files, total := goSrcTexts(b)
	gs := newGramSet()
	t := newContentTable()
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		for _, data := range files {
			_ = maphash.Bytes(t.seed, data)
			newGramFilter(gs.of(data), gramBits)
		}
	}
}

// goSrcTexts reads the text files of the Go source tree.
func goSrcTexts(b *testing.B) (files [][]byte, total int64) {
	filepath.WalkDir(goSrcDir(b), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if data, err := os.ReadFile(p); err == nil && !isBinary(data) {
				files = append(files, data)
				total += int64(len(data))
			}
		}
		return nil
	})
	if len(files) == 0 {
		b.Skip("Go source tree not available")
	}
	return files, total
}

// goSrcDir is the Go toolchain's source tree (`go env GOROOT`/src), or
// skips b without a go command.
func goSrcDir(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no go command to find the Go source tree: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

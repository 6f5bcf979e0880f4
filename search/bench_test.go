package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/whale-ls/whale-ls/workspace"
)

// goSrcRoot opens the Go toolchain's source tree, the benchmark corpus
// shared with bench/search/run.sh.
func goSrcRoot(b *testing.B) *os.Root {
	b.Helper()
	dir := filepath.Join(runtime.GOROOT(), "src")
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

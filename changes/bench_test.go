package changes

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchTree writes a tree of files folders × perFolder small Go-like files.
func benchTree(b *testing.B, folders, perFolder int) string {
	dir := b.TempDir()
	files := map[string]string{}
	for d := range folders {
		for f := range perFolder {
			files[fmt.Sprintf("pkg%d/file%d.go", d, f)] = strings.Repeat(fmt.Sprintf("// line of file %d in %d\n", f, d), 40)
		}
	}
	writeTree(b, dir, files)
	return dir
}

func BenchmarkSnapshot(b *testing.B) {
	dir := benchTree(b, 100, 40)
	root, ig := openRoot(b, dir)
	ctx := context.Background()
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			j, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := j.Snapshot(ctx, root, dir, ig); err != nil {
				b.Fatal(err)
			}
			j.Close()
		}
	})
	b.Run("later", func(b *testing.B) {
		j, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer j.Close()
		if _, err := j.Snapshot(ctx, root, dir, ig); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := j.Snapshot(ctx, root, dir, ig); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkMerge3(b *testing.B) {
	var base strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&base, "line %d\n", i)
	}
	bs := base.String()
	theirs := strings.Replace(bs, "line 100\n", "LINE 100\n", 1)
	ours := strings.Replace(bs, "line 4000\n", "LINE 4000\n", 1)
	for b.Loop() {
		Merge3([]byte(bs), []byte(theirs), []byte(ours))
	}
}

// BenchmarkBeginCommit journals one small change, without fsync and with
// it (Options.Sync, as the language server journals): the ratio is what
// durability costs an edit.
func BenchmarkBeginCommit(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("sync=%v", sync), func(b *testing.B) { benchBeginCommit(b, Options{Sync: sync}) })
	}
}

func benchBeginCommit(b *testing.B, o Options) {
	j, err := Open(b.TempDir(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	path := b.TempDir() + "/f.go"
	before := []byte("package p\n\nfunc F() int {\n\treturn 0\n}\n")
	n := 0
	for b.Loop() {
		n++
		after := fmt.Appendf(nil, "package p\n\nfunc F() int {\n\treturn %d\n}\n", n)
		p, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: path, Before: before, After: after, BeforeExists: true, AfterExists: true}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Commit(); err != nil {
			b.Fatal(err)
		}
		before = after
	}
}

// BenchmarkBeginCommitLarge journals one changed line of a 2,000-line file,
// the size of an edit tool call's change.
func BenchmarkBeginCommitLarge(b *testing.B) {
	j, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	path := b.TempDir() + "/f.go"
	var text strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "\tx%d := compute(%d, \"line %d of a file\")\n", i, i, i)
	}
	orig := text.String()
	before := []byte(orig)
	n := 0
	for b.Loop() {
		n++
		after := []byte(strings.Replace(orig, "x1000 := compute(1000,", fmt.Sprintf("x1000 := compute(%d,", 1000+n), 1))
		p, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: path, Before: before, After: after, BeforeExists: true, AfterExists: true}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Commit(); err != nil {
			b.Fatal(err)
		}
		before = after
	}
}

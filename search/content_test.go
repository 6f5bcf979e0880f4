//go:build linux

package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/workspace"
)

// grepFiles greps pat (files mode) with the index and the overlay.
func grepFiles(t *testing.T, root *os.Root, x *Index, pat string, overlay map[string][]byte) []string {
	t.Helper()
	return grepFilesCase(t, root, x, pat, false, overlay)
}

func grepFilesCase(t *testing.T, root *os.Root, x *Index, pat string, icase bool, overlay map[string][]byte) []string {
	t.Helper()
	res, err := Grep(context.Background(), root, workspace.NewIgnorer(root), Request{Pattern: pat, CaseInsensitive: icase, Mode: ModeFiles, Index: x, Overlay: overlay})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

// listedFor returns the files the index would have grep read for pat.
func listedFor(t *testing.T, x *Index, pat string, icase bool) []string {
	t.Helper()
	m, err := compilePattern(pat, false, icase)
	if err != nil {
		t.Fatal(err)
	}
	dirs, ok := x.listing(".", nil, &contentFilter{q: m.grams})
	if !ok {
		t.Fatal("the index did not answer")
	}
	var out []string
	for _, d := range dirs {
		for _, f := range d.files {
			out = append(out, joinRel(d.rel, f.name))
		}
	}
	slices.Sort(out)
	return out
}

// TestContentFilterReadsOnlyCandidates checks that, once the filter has
// read the files, grep reads only those that may match, and binary files
// none at all; and that the status counts them.
func TestContentFilterReadsOnlyCandidates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"bin.dat": "\x00needle\n", "hit.go": "x := needle\n"}
	for i := range 200 {
		files[fmt.Sprintf("d%d/f%d.go", i%7, i)] = fmt.Sprintf("package p%d\nfunc f%d() { return hay }\n", i, i)
	}
	writeTree(t, dir, files)
	root, x := startIndex(t, dir, IndexOptions{})
	st := waitContents(t, x)
	if st.Contents != len(files) || st.FilterBytes == 0 {
		t.Errorf("status %+v: want %d files in the content filter", st, len(files))
	}
	// A false positive is possible (about 3% per file here): a handful is
	// fine, most of 200 is not.
	if got := listedFor(t, x, "needle", false); !slices.Contains(got, "hit.go") || len(got) > 10 || slices.Contains(got, "bin.dat") {
		t.Errorf("grep needle would read %d files %v; want hit.go and few others, not bin.dat", len(got), got)
	}
	if got := listedFor(t, x, `\w+`, false); len(got) != len(files)-1 {
		t.Errorf(`grep \w+ (no trigram) would read %d files, want every text file (%d)`, len(got), len(files)-1)
	}
	if got := grepFiles(t, root, x, "needle", nil); !slices.Equal(got, []string{"hit.go"}) {
		t.Errorf("grep needle = %v, want [hit.go]", got)
	}
}

// TestContentFilterFollowsChanges checks that a file whose filter said
// "no" is found as soon as it changes (before the filter reads it again),
// a binary file that becomes text too, and that an open buffer is searched
// whatever the filter says of the file on disk.
func TestContentFilterFollowsChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "hay\n", "b.bin": "\x00hay\n", "c.go": "hay needle\n", "sub/d.go": "hay\n"})
	root, x := startIndex(t, dir, IndexOptions{})
	waitContents(t, x)
	check := func(step string, want []string, overlay map[string][]byte) {
		t.Helper()
		if got := grepFiles(t, root, x, "needle", overlay); !slices.Equal(got, want) {
			t.Errorf("%s: grep needle = %v, want %v", step, got, want)
		}
	}
	check("start", []string{"c.go"}, nil)
	check("open buffers", []string{"a.go"}, map[string][]byte{"a.go": []byte("needle\n"), "c.go": []byte("hay\n")})

	write(t, dir, "a.go", "needle\n")
	write(t, dir, "b.bin", "needle\n")
	write(t, dir, "c.go", "hay\n")
	check("changed", []string{"a.go", "b.bin"}, nil)
	waitContents(t, x)
	check("changed, read again", []string{"a.go", "b.bin"}, nil)

	if err := os.Rename(filepath.Join(dir, "a.go"), filepath.Join(dir, "sub/e.go")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "sub/d.go", "needle\n")
	check("renamed", []string{"b.bin", "sub/d.go", "sub/e.go"}, nil)
	waitContents(t, x)
	check("renamed, read again", []string{"b.bin", "sub/d.go", "sub/e.go"}, nil)
}

// TestContentFilterSharesBlobs checks that files with the same bytes share
// one filter, which lives as long as one of them does.
func TestContentFilterSharesBlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	same := "package same // needle\n"
	writeTree(t, dir, map[string]string{"a.go": same, "b/a.go": same, "c/a.go": same, "other.go": "hay\n"})
	root, x := startIndex(t, dir, IndexOptions{})
	waitContents(t, x)
	blobs := func() int {
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.content.byKey.n
	}
	if n := blobs(); n != 2 {
		t.Errorf("%d blobs for 4 files of 2 contents, want 2", n)
	}
	os.Remove(filepath.Join(dir, "a.go"))
	os.RemoveAll(filepath.Join(dir, "b"))
	waitContents(t, x)
	if got := grepFiles(t, root, x, "needle", nil); !slices.Equal(got, []string{"c/a.go"}) {
		t.Errorf("grep needle = %v, want [c/a.go]", got)
	}
	write(t, dir, "c/a.go", "hay\n")
	st := waitContents(t, x)
	if n := blobs(); n != 1 || st.Contents != 2 {
		t.Errorf("after the shared content is gone: %d blobs, status %+v; want 1 blob, 2 files", n, st)
	}
	if got := grepFiles(t, root, x, "needle", nil); got != nil {
		t.Errorf("grep needle = %v, want none", got)
	}
}

// TestContentFilterChangeWhileReading changes files just after the content
// indexer read them and before it recorded their filters, with the change's
// event applied before it records (a.go) or after (b.go): the next grep
// must see the new bytes either way, and c.go, which still holds what they
// held, must keep a filter of those bytes (not of what a.go or b.go became).
func TestContentFilterChangeWhileReading(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "hay\n", "b.go": "hay\n", "c.go": "hay\n"})
	root := openRoot(t, dir)
	var xp atomic.Pointer[Index]
	changed := make(chan string, 2)
	var seenMu sync.Mutex // the indexer reads on several goroutines
	seen := map[string]bool{}
	o := IndexOptions{afterContentRead: func(rel string) {
		seenMu.Lock()
		defer seenMu.Unlock()
		if seen[rel] || rel == "c.go" {
			return
		}
		seen[rel] = true
		if err := os.WriteFile(filepath.Join(dir, rel), []byte("needle\n"), 0o644); err != nil {
			panic(err)
		}
		if rel == "a.go" {
			for xp.Load() == nil {
				time.Sleep(time.Millisecond)
			}
			x := xp.Load()
			x.mu.Lock()
			x.drainLocked()
			x.mu.Unlock()
		}
		changed <- rel
	}}
	x := NewIndex(root, dir, o)
	xp.Store(x)
	t.Cleanup(x.Close)
	for range 2 {
		select {
		case <-changed:
		case <-time.After(30 * time.Second):
			t.Fatal("the content indexer did not read a.go and b.go")
		}
	}
	for _, when := range []string{"just after the changes", "once read again"} {
		if got, want := grepFiles(t, root, x, "needle", nil), []string{"a.go", "b.go"}; !slices.Equal(got, want) {
			t.Errorf("grep needle %s = %v, want %v", when, got, want)
		}
		if got, want := grepFiles(t, root, x, "hay", nil), []string{"c.go"}; !slices.Equal(got, want) {
			t.Errorf("grep hay %s = %v, want %v", when, got, want)
		}
		waitContents(t, x)
	}
}

// TestContentFilterBudget checks that files over the filter's memory
// budget are read by every grep, and counted as such.
func TestContentFilterBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("%d %s needle\n", i, longText(i))
	}
	writeTree(t, dir, files)
	root, x := startIndex(t, dir, IndexOptions{contentBudget: 8 << 10})
	st := waitContents(t, x)
	if st.Contents == 0 || st.Contents == len(files) || st.FilterBytes > 8<<10 {
		t.Errorf("status %+v: want some of %d files filtered within 8 KiB", st, len(files))
	}
	var want []string
	for name := range files {
		want = append(want, name)
	}
	slices.Sort(want)
	if d := cmp.Diff(want, grepFiles(t, root, x, "needle", nil)); d != "" {
		t.Errorf("grep needle (-want +got):\n%s", d)
	}
}

// longText is text with many distinct trigrams.
func longText(seed int) string {
	b := make([]byte, 0, 4096)
	for i := range 1000 {
		b = fmt.Appendf(b, "%x", (i+1)*(seed+7)*2654435761)
	}
	return string(b)
}

// TestContentFilterFoldedLetters checks that a case-insensitive grep whose
// pattern has a k or an s finds the lines where those are the Kelvin sign
// or the long s, which fold to them, while the filter still leaves out the
// files that cannot match.
func TestContentFilterFoldedLetters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "SE\u017f\u017fION\n", "b.txt": "Session\n", "c.txt": "nothing\n", "d.txt": "\u212aind\n"})
	root, x := startIndex(t, dir, IndexOptions{})
	waitContents(t, x)
	if got := grepFilesCase(t, root, x, "session", true, nil); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("grep -i session = %v, want [a.txt b.txt]", got)
	}
	if got := grepFilesCase(t, root, x, "kind", true, nil); !slices.Equal(got, []string{"d.txt"}) {
		t.Errorf("grep -i kind = %v, want [d.txt]", got)
	}
	if got := listedFor(t, x, "session", true); slices.Contains(got, "c.txt") {
		t.Errorf("grep -i session would read %v, not c.txt", got)
	}
}

// TestHalveFilter checks that a halved filter is the filter of the same
// trigrams built at half the size, in place too, and that a built filter
// can be halved down to minGramBits.
func TestHalveFilter(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 100, 5000} {
		grams := make([]uint32, n)
		for i := range grams {
			grams[i] = rng.Uint32() & gramMask
		}
		f := newGramFilter(grams, gramBits)
		for bits := gramBits; bits > minGramBits; bits /= 2 {
			if len(f)%2 != 0 {
				t.Fatalf("%d trigrams at %d bits: %d words, cannot be halved", n, bits, len(f))
			}
			want := make(gramFilter, len(f)/2)
			m := uint64(len(want)) * 64
			for _, g := range grams {
				for _, p := range probes(g, m) {
					want[p>>6] |= 1 << (p & 63)
				}
			}
			f = halveInPlace(f)
			if !slices.Equal(f, want) {
				t.Fatalf("%d trigrams halved to %d bits: not the filter built at that size", n, bits/2)
			}
			for _, g := range grams {
				if !f.has(g) {
					t.Fatalf("%d trigrams halved to %d bits: lost trigram %#x", n, bits/2, g)
				}
			}
		}
	}
}

// TestFilterStoreShrink fills several slabs, frees some filters, and
// checks that shrink halves those that can be (the others moved as they
// are, flags kept), packs them and gives the slabs back.
func TestFilterStoreShrink(t *testing.T) {
	t.Parallel()
	var s filterStore
	defer s.release()
	rng := rand.New(rand.NewPCG(3, 4))
	var refs []filterRef
	var grams [][]uint32
	for i := range 40 {
		g := make([]uint32, 250000+rng.IntN(200000))
		for j := range g {
			g[j] = rng.Uint32() & gramMask
		}
		bits := gramBits >> (i % 3 / 2) // 8, 8, 4
		r := s.put(newGramFilter(g, bits)).withHalvings(halvings(bits))
		if i%2 == 0 {
			r |= refFolds
		}
		refs, grams = append(refs, r), append(grams, g)
	}
	for i := range refs {
		if i%4 == 1 {
			s.free(refs[i])
			refs[i], grams[i] = 0, nil
		}
	}
	before, slabs := s.live, len(s.slabs)
	old := slices.Clone(refs)
	freed := s.shrink(refs)
	if freed <= 0 || s.live != before-freed || len(s.slabs) >= slabs || s.dead >= slabWords {
		t.Errorf("shrink freed %d words: live %d → %d, %d → %d slabs, %d dead words", freed, before, s.live, slabs, len(s.slabs), s.dead)
	}
	for i, r := range refs {
		if grams[i] == nil {
			continue
		}
		want := old[i].words()
		if old[i].halvings() > 0 {
			want /= 2
		}
		if r.words() != want || r.halvings() != max(old[i].halvings()-1, 0) || r&refFolds != old[i]&refFolds {
			t.Errorf("filter %d: %d words, %d halvings left, flag %v; was %d, %d, %v", i, r.words(), r.halvings(), r&refFolds != 0, old[i].words(), old[i].halvings(), old[i]&refFolds != 0)
		}
		f := s.view(r)
		for _, g := range grams[i] {
			if !f.has(g) {
				t.Fatalf("filter %d lost trigram %#x in the shrink", i, g)
			}
		}
	}
}

// TestContentTableHalvesAtBudget adds filters past the budget: the table
// halves them all, then builds smaller ones, and refuses only what would
// not fit at minGramBits; no filter loses a trigram.
func TestContentTableHalvesAtBudget(t *testing.T) {
	t.Parallel()
	tab := newContentTable()
	defer tab.close()
	tab.budget = 64 << 10
	rng := rand.New(rand.NewPCG(5, 6))
	var ids []uint32
	var grams [][]uint32
	refused := 0
	for i := range 200 {
		g := make([]uint32, 1000)
		for j := range g {
			g[j] = rng.Uint32() & gramMask
		}
		bits := tab.bits
		id, ok := tab.add(blobKey{size: int64(i), sum: rng.Uint64()}, newGramFilter(g, bits), bits, false)
		if !ok {
			refused++
			continue
		}
		ids, grams = append(ids, id), append(grams, g)
		if tab.bytes > tab.budget {
			t.Fatalf("after %d filters: %d bytes, over the budget of %d", i+1, tab.bytes, tab.budget)
		}
	}
	// 1000 trigrams take 1000 bytes at 8 bits, 250 at 2: 64 KiB holds 262.
	if tab.bits != minGramBits || refused != 0 || len(ids) != 200 {
		t.Errorf("%d filters added, %d refused, new ones at %d bits; want all 200, at %d bits", len(ids), refused, tab.bits, minGramBits)
	}
	for i, id := range ids {
		f := tab.filter(id)
		if len(f)*64 < len(grams[i])*minGramBits {
			t.Errorf("filter %d: %d bits for %d trigrams", i, len(f)*64, len(grams[i]))
		}
		for _, g := range grams[i] {
			if !f.has(g) {
				t.Fatalf("filter %d lost trigram %#x", i, g)
			}
		}
	}
	// 128 KiB at 8 bits, 32 at 2: more than is left.
	if _, ok := tab.add(blobKey{size: -1}, make(gramFilter, 16384), gramBits, false); ok {
		t.Errorf("a filter past the budget at %d bits was added (%d bytes held)", minGramBits, tab.bytes)
	}
}

// TestContentFilterPartlyBuilt holds the content indexer's first pass half
// done: grep must then find exactly what it finds without the filter, skip
// the files whose filter is ready and cannot match, and read every file
// still pending; the status counts both. Once the pass ends, the same.
func TestContentFilterPartlyBuilt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 60 {
		text := fmt.Sprintf("package p%d\nfunc f%d() { return hay%d }\n", i, i, i)
		if i%3 == 0 {
			text += "// needle\n"
		}
		files[fmt.Sprintf("d%d/f%02d.go", i%4, i)] = text
	}
	writeTree(t, dir, files)
	const placedBeforeHold = 20
	var placed atomic.Int32
	hold, held := make(chan struct{}), make(chan struct{}, 1)
	root, x := startIndex(t, dir, IndexOptions{filterPlaced: func() {
		if placed.Add(1) >= placedBeforeHold {
			select {
			case held <- struct{}{}:
			default:
			}
			<-hold
		}
	}})
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the content indexer did not place its filters")
	}
	// Another reader may still place the filter it was building: files
	// only go from pending to ready, so the listing is taken first.
	listed := listedFor(t, x, "needle", false)
	x.mu.Lock()
	var ready, pending []string
	for _, d := range x.byWd {
		for _, f := range d.files {
			if f.blob >= firstBlob {
				ready = append(ready, joinRel(d.rel, f.name))
			} else {
				pending = append(pending, joinRel(d.rel, f.name))
			}
		}
	}
	x.mu.Unlock()
	st := x.Status()
	if len(ready) == 0 || len(pending) == 0 || st.Contents == 0 || st.Contents+st.ContentsPending != len(files) || st.FilterTime != 0 {
		t.Fatalf("mid-pass: %d files ready, %d pending, status %+v; want both, counted", len(ready), len(pending), st)
	}
	var want []string
	for name, text := range files {
		if strings.Contains(text, "needle") {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	check := func(when string) {
		t.Helper()
		if got := grepFiles(t, root, x, "needle", nil); !slices.Equal(got, want) {
			t.Errorf("%s: grep needle with the index = %v, want %v", when, got, want)
		}
		if got := grepFiles(t, root, nil, "needle", nil); !slices.Equal(got, want) {
			t.Errorf("%s: grep needle walking = %v, want %v", when, got, want)
		}
	}
	check("mid-pass")
	for _, p := range pending {
		if !slices.Contains(listed, p) {
			t.Errorf("mid-pass: %s, not filtered yet, is not read", p)
		}
	}
	skipped := 0
	for _, p := range ready {
		if !slices.Contains(listed, p) {
			skipped++
		}
	}
	if skipped == 0 {
		t.Errorf("mid-pass: grep reads all %d files whose filter is ready; want those that cannot match skipped", len(ready))
	}
	close(hold)
	waitContents(t, x)
	// The pass ends (and its time is set) just after its last file.
	for deadline := time.Now().Add(30 * time.Second); x.Status().FilterTime == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if st = x.Status(); st.FilterTime <= 0 || !strings.Contains(st.String(), "first pass") {
		t.Errorf("after the pass: status %+v (%s); want the first pass's time", st, st)
	}
	check("after the pass")
}

// TestContentFilterAgreesWithFullScan greps random trees (shared contents,
// binary files, a budget small enough that filters are halved or left
// out) with the index and by walking: the answers must be the same. The
// first pass must read each file once.
func TestContentFilterAgreesWithFullScan(t *testing.T) {
	t.Parallel()
	words := []string{"alpha", "beta", "gamma", "delta", "needle", "hay", "Stack", "queue", "\u212aelvin", "func", "main", "return"}
	patterns := []struct {
		pat   string
		icase bool
	}{
		{"needle", false}, {"alpha beta", false}, {"gamma|delta", false}, {`ret\w+n`, false},
		{"STACK", true}, {"kelvin", true}, {"needle|queue", true}, {"no such text", false},
	}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		dir := t.TempDir()
		files := map[string]string{}
		var texts []string
		for i := range 150 {
			name := fmt.Sprintf("d%d/e%d/f%03d.txt", rng.IntN(5), rng.IntN(3), i)
			if len(texts) > 0 && rng.IntN(4) == 0 {
				files[name] = texts[rng.IntN(len(texts))] // a shared content
				continue
			}
			var b strings.Builder
			for range 1 + rng.IntN(400) {
				b.WriteString(words[rng.IntN(len(words))])
				if rng.IntN(6) == 0 {
					b.WriteByte('\n')
				} else {
					b.WriteByte(' ')
				}
			}
			if rng.IntN(20) == 0 {
				b.WriteString("\x00")
			}
			texts = append(texts, b.String())
			files[name] = b.String()
		}
		writeTree(t, dir, files)
		var readsMu sync.Mutex
		reads := map[string]int{}
		root, x := startIndex(t, dir, IndexOptions{contentBudget: 2 << 10, afterContentRead: func(rel string) {
			readsMu.Lock()
			reads[rel]++
			readsMu.Unlock()
		}})
		st := waitContents(t, x)
		x.mu.Lock()
		bits := x.content.bits
		x.mu.Unlock()
		if st.FilterBytes > 2<<10 || bits != minGramBits {
			t.Errorf("seed %d: filters take %d bytes (budget 2 KiB), new ones %d bits a trigram; want them halved to %d, within the budget", seed, st.FilterBytes, bits, minGramBits)
		}
		readsMu.Lock()
		for name, text := range files {
			if n := reads[name]; n != 1 && !strings.Contains(text, "\x00") {
				t.Errorf("seed %d: the first pass read %s %d times, want once", seed, name, n)
			}
		}
		readsMu.Unlock()
		for _, p := range patterns {
			got := grepFilesCase(t, root, x, p.pat, p.icase, nil)
			want := grepFilesCase(t, root, nil, p.pat, p.icase, nil)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("seed %d: grep %q (icase %v) with the index differs from a walk (-walk +index):\n%s", seed, p.pat, p.icase, d)
			}
		}
	}
}

// gramsReference is gramSet.of done the plain way, a byte at a time.
func gramsReference(data []byte) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	var g uint32
	run := 0
	for _, b := range data {
		if b == '\n' || b == '\r' {
			run = 0
			continue
		}
		g = (g<<7 | uint32(gramByte[b])) & gramMask
		if run++; run >= 3 && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

// TestGramSetOf checks the trigrams of random text (line breaks of every
// kind, bytes from 0x80 up) against the plain way, buffer after buffer.
func TestGramSetOf(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 9))
	alphabet := []byte("abcXYZ \t\n\r\r\n{}\x80\xc3\xa9\xff")
	gs := newGramSet()
	for i := range 300 {
		data := make([]byte, rng.IntN(2000))
		for j := range data {
			data[j] = alphabet[rng.IntN(len(alphabet))]
		}
		got, want := slices.Sorted(slices.Values(gs.of(data))), gramsReference(data)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("buffer %d (%q): trigrams %v, want %v", i, data, got, want)
		}
	}
}

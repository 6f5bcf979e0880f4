package search

import (
	"bytes"
	"errors"
	"hash/maphash"
	"maps"
	"math/bits"
	"regexp/syntax"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The content filter: beside each indexed file the index keeps the id of
// its content (a blob: files with the same bytes share one), and for each
// blob a Bloom filter of the trigrams it holds, letters folded to lower
// case. A grep whose pattern requires some trigrams then reads only the
// files whose filter may hold all of them; the filter never says no to a
// file that has them, so the match set is the same as reading every file.

// A file's blob id, or one of these states.
const (
	// blobUnknown: not looked at since the file appeared or changed; the
	// content indexer will, and until then searches read the file.
	blobUnknown uint32 = iota
	// blobPending: the content indexer is reading it; searches read it.
	blobPending
	// blobUnfiltered: the indexer left it out (too large, unreadable, or
	// over the memory budget); searches read it.
	blobUnfiltered
	// blobBinary: a NUL in the first binaryProbe bytes, so grep skips it.
	blobBinary
	// firstBlob is the first id of a blob with a filter.
	firstBlob
)

// Bounds on the content filter.
const (
	// gramBits is the size of a new blob's filter per distinct trigram it
	// holds: with 3 probes a trigram it lacks passes about 3% of the time.
	// When a new filter would not fit in the budget, every filter is
	// halved (shrink), and new ones are built at the smaller size until
	// the pass ends, down to minGramBits (a trigram a file lacks then
	// passes about 15% of the time at 4 bits, 47% at 2), so that more
	// files are filtered, less sharply.
	gramBits    = 8
	minGramBits = 2
	// gramProbes is the number of bits each trigram sets.
	gramProbes = 3
	// maxFilteredSize is the size from which a file is read by every grep
	// rather than filtered.
	maxFilteredSize = 16 << 20
	// contentBudget caps the bytes all filters take together.
	contentBudget = 48 << 20
	// contentSettle is how long the indexer waits after a change before it
	// reads the changed files, so that a burst of writes is read once.
	contentSettle = 100 * time.Millisecond
)

// gramByte is the 7-bit letter a byte counts as in a trigram: ASCII
// upper-case letters fold to lower case, and a byte from 0x80 up counts as
// the ASCII byte of its low 7 bits. Bytes that share a letter are the same
// to the filter, which makes it answer "may hold" more often, never less;
// in return a trigram takes 21 bits, and the set of a file's trigrams fits
// in a processor's cache.
var gramByte = func() (t [256]byte) {
	for i := range t {
		b := i & 0x7f
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		t[i] = byte(b)
	}
	return t
}()

// gramMask keeps a trigram's 21 bits.
const gramMask = 1<<21 - 1

// gramSet collects the distinct trigrams of one buffer; it is reused
// buffer after buffer by one goroutine.
type gramSet struct {
	seen  []uint64 // one bit per trigram: 256 KiB
	grams []uint32
}

func newGramSet() *gramSet { return &gramSet{seen: make([]uint64, (gramMask+1)/64)} }

// of returns the distinct trigrams of data that hold no line break
// (no search looks for one), in no particular order, valid until the next
// call.
func (s *gramSet) of(data []byte) []uint32 {
	for _, g := range s.grams {
		s.seen[g>>6] = 0
	}
	s.grams = s.grams[:0]
	var g uint32
	run := 0 // bytes since the last line break
	for _, b := range data {
		if b == '\n' || b == '\r' {
			run = 0
			continue
		}
		g = (g<<7 | uint32(gramByte[b])) & gramMask
		if run++; run < 3 {
			continue
		}
		if w, bit := g>>6, uint64(1)<<(g&63); s.seen[w]&bit == 0 {
			s.seen[w] |= bit
			s.grams = append(s.grams, g)
		}
	}
	return s.grams
}

// gramFilter is a Bloom filter of a blob's trigrams.
type gramFilter []uint64

// probes returns the gramProbes bit positions of g in a filter of m bits.
func probes(g uint32, m uint64) [gramProbes]uint64 {
	h := uint64(g) * 0x9e3779b97f4a7c15
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	h1, h2 := uint32(h), uint32(h>>32)|1
	var p [gramProbes]uint64
	for i := range p {
		x := h1 + uint32(i)*h2
		p[i] = uint64(x) * m >> 32
	}
	return p
}

// newGramFilter builds the filter of grams with bits bits per trigram.
func newGramFilter(grams []uint32, bits int) gramFilter {
	return buildGramFilter(nil, grams, bits)
}

// filterWords is the size in words of the filter of grams trigrams at bits
// bits each (a power of two from minGramBits to gramBits): rounded up to a
// multiple of bits/minGramBits words, so that it can be halved down to
// minGramBits.
func filterWords(grams, bits int) int {
	unit := bits / minGramBits
	n := (grams*bits + 63) / 64
	return (n + unit - 1) / unit * unit
}

// halvings is how many times a filter of bits bits per trigram can be
// halved.
func halvings(perGram int) int { return bits.Len(uint(perGram/minGramBits)) - 1 }

// buildGramFilter is newGramFilter in buf's memory (grown if needed); the
// content indexer copies the result into the table's store.
func buildGramFilter(buf gramFilter, grams []uint32, bits int) gramFilter {
	n := filterWords(len(grams), bits)
	if cap(buf) < n {
		buf = make(gramFilter, n)
	}
	f := buf[:n]
	clear(f)
	m := uint64(len(f)) * 64
	for _, g := range grams {
		for _, p := range probes(g, m) {
			f[p>>6] |= 1 << (p & 63)
		}
	}
	return f
}

// halveFilter writes to dst (half as long as src, an even number of
// words) the filter src would be with half its bits: a trigram's probe at
// bit p of src is at bit p/2 of a filter half as long (probes scales a
// hash to the size), so bit j of dst is bit 2j or bit 2j+1 of src. dst may
// start where src does, or before: word k of dst is written after words
// 2k and 2k+1 of src are read.
func halveFilter(dst, src gramFilter) {
	for k := range dst {
		lo, hi := src[2*k], src[2*k+1]
		dst[k] = evenBits(lo|lo>>1) | evenBits(hi|hi>>1)<<32
	}
}

// evenBits packs the 32 even bits of x into its low half.
func evenBits(x uint64) uint64 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0f0f0f0f0f0f0f0f
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	return (x | x>>16) & 0x00000000ffffffff
}

// has reports whether the filter may hold g (false: it surely does not).
func (f gramFilter) has(g uint32) bool {
	m := uint64(len(f)) * 64
	if m == 0 {
		return false
	}
	for _, p := range probes(g, m) {
		if f[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}

// gramQuery is what a pattern requires of a file's trigrams: all of all,
// and, when any is set, one of any too. A nil *gramQuery requires nothing.
// With folded, some trigram stands for an ASCII k or s whose other forms
// (kelvinSign, longS) it does not cover: a file holding one of those is
// kept whatever its filter says.
type gramQuery struct {
	all    []uint32
	any    []*gramQuery
	folded bool
}

// mayMatch reports whether a file whose filter is f can hold a match.
func (q *gramQuery) mayMatch(f gramFilter) bool {
	for _, g := range q.all {
		if !f.has(g) {
			return false
		}
	}
	if len(q.any) == 0 {
		return true
	}
	for _, s := range q.any {
		if s.mayMatch(f) {
			return true
		}
	}
	return false
}

// gramsFor returns the trigrams a line must hold to match re, or nil when
// the pattern requires none that the filter can check. It builds on the
// sequences the finder is planned from (seqBuilder): three adjacent
// positions each of which allows one letter (gramByte) make a required
// trigram.
func gramsFor(re *syntax.Regexp) *gramQuery {
	if re.Op == syntax.OpCapture && re.Sub[0].Op == syntax.OpAlternate {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpAlternate {
		if len(re.Sub) > maxFinderAlts {
			return nil
		}
		q := &gramQuery{}
		for _, sub := range re.Sub {
			s := gramsFor(sub)
			if s == nil {
				return nil // a branch that requires nothing: so does the whole
			}
			q.any = append(q.any, s)
			q.folded = q.folded || s.folded
		}
		return q
	}
	b := &seqBuilder{lenient: true}
	b.walk(re)
	b.cut()
	var all []uint32
	for _, seq := range b.seqs {
		var g uint32
		run := 0
		for _, set := range seq {
			c, ok := foldedSingle(set)
			if !ok {
				run = 0
				continue
			}
			g = (g<<7 | uint32(c)) & gramMask
			if run++; run >= 3 && !slices.Contains(all, g) {
				all = append(all, g)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	return &gramQuery{all: all, folded: b.folded}
}

// foldsToASCII reports whether data holds a rune outside ASCII that folds to
// an ASCII letter (kelvinSign, longS).
func foldsToASCII(data []byte) bool {
	return bytes.Contains(data, []byte(string(kelvinSign))) || bytes.Contains(data, []byte(string(longS)))
}

// foldedSingle returns the one letter (gramByte) the set allows; ok is
// false when it allows none, several, or a line break.
func foldedSingle(s byteSet) (c byte, ok bool) {
	n := 0
	for w, word := range s {
		for word != 0 {
			b := byte(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
			if b == '\n' || b == '\r' {
				return 0, false
			}
			if f := gramByte[b]; n == 0 || f != c {
				if n++; n > 1 {
					return 0, false
				}
				c = f
			}
		}
	}
	return c, n == 1
}

// blobKey identifies a file's content: its size and a 64-bit hash of its
// bytes.
type blobKey struct {
	size int64
	sum  uint64
}

// contentTable holds the blobs of one index. It is guarded by the index's
// lock. A blob costs 28 bytes here (key, reference count, filter ref) and
// 8 to 16 of byKey, beside its filter's bits in store.
type contentTable struct {
	seed  maphash.Seed
	store filterStore
	// filters locates each blob's filter in store, refFolds set when the
	// blob holds a rune that folds to an ASCII letter (foldsToASCII); 0
	// for a free or reserved id.
	filters []filterRef
	keys    []blobKey
	refs    []int32
	// byKey finds a blob by its key.
	byKey  blobIndex
	free   []uint32
	bytes  int64 // held by the filters
	budget int64 // the most bytes the filters may take
	// bits is the size per trigram of new filters: gramBits at the start of
	// each pass of the indexer, halved with every filter when the budget is
	// reached (add). No filter has more.
	bits int
	// files counts the files whose blob is known (binary included),
	// unfiltered those the indexer left out.
	files, unfiltered int
	// dirty holds the folders with files of unknown content; poke wakes
	// the indexer when one is added.
	dirty map[*indexDir]struct{}
	poke  chan struct{}
}

func newContentTable() *contentTable {
	return &contentTable{
		seed:    maphash.MakeSeed(),
		filters: make([]filterRef, firstBlob),
		keys:    make([]blobKey, firstBlob),
		refs:    make([]int32, firstBlob),
		budget:  contentBudget,
		bits:    gramBits,
		dirty:   map[*indexDir]struct{}{},
		poke:    make(chan struct{}, 1),
	}
}

// close gives the filters' memory back; the table is empty after.
func (t *contentTable) close() {
	t.store.release()
	clear(t.filters)
	t.bytes = 0
}

// filter returns the filter of blob, valid while the index's lock is held.
func (t *contentTable) filter(blob uint32) gramFilter { return t.store.view(t.filters[blob]) }

// folds reports whether blob holds a rune that folds to an ASCII letter.
func (t *contentTable) folds(blob uint32) bool { return t.filters[blob]&refFolds != 0 }

// markDirtyLocked has the content indexer look at the files of unknown
// content in n.
func (x *Index) markDirtyLocked(n *indexDir) {
	if x.content == nil {
		return
	}
	x.content.dirty[n] = struct{}{}
	select {
	case x.content.poke <- struct{}{}:
	default:
	}
}

// release drops one file's reference to its blob.
func (t *contentTable) release(blob uint32) {
	switch {
	case blob == blobUnfiltered:
		t.unfiltered--
	case blob == blobBinary:
		t.files--
	case blob >= firstBlob:
		t.files--
		if t.refs[blob]--; t.refs[blob] == 0 {
			t.byKey.remove(t.keys, blob)
			t.bytes -= int64(t.filters[blob].words()) * 8
			t.store.free(t.filters[blob])
			t.filters[blob], t.keys[blob] = 0, blobKey{}
			t.free = append(t.free, blob)
		}
	}
}

// ref gives one more file the blob of key, if one exists.
func (t *contentTable) ref(key blobKey) (uint32, bool) {
	if id, ok := t.byKey.find(t.keys, key); ok {
		t.refs[id]++
		t.files++
		return id, true
	}
	return 0, false
}

// add stores a new blob (a copy of f, a filter of bits bits per trigram)
// with one reference; ok is false when it would go over the memory budget
// with every filter at minGramBits. A filter of more bits than t.bits is
// halved first; when f does not fit, every filter that can be is halved
// (shrink), and so is f, until it fits. f's memory may be written.
func (t *contentTable) add(key blobKey, f gramFilter, bits int, folds bool) (uint32, bool) {
	if id, ok := t.ref(key); ok {
		return id, true
	}
	for ; bits > t.bits; bits /= 2 {
		f = halveInPlace(f)
	}
	for t.bytes+int64(len(f))*8 > t.budget {
		if t.bits <= minGramBits {
			return 0, false
		}
		t.bytes -= t.store.shrink(t.filters) * 8
		t.bits /= 2
		f, bits = halveInPlace(f), bits/2
	}
	if t.store.wasteful() {
		t.store.compact(t.filters)
	}
	r := t.store.put(f)
	if len(f) > 0 {
		r = r.withHalvings(halvings(bits))
	}
	if folds {
		r |= refFolds
	}
	var id uint32
	if n := len(t.free); n > 0 {
		id, t.free = t.free[n-1], t.free[:n-1]
		t.filters[id], t.keys[id], t.refs[id] = r, key, 1
	} else {
		id = uint32(len(t.filters))
		t.filters, t.keys, t.refs = append(t.filters, r), append(t.keys, key), append(t.refs, 1)
	}
	t.byKey.insert(t.keys, id)
	t.bytes += int64(len(f)) * 8
	t.files++
	return id, true
}

// halveInPlace halves f (halveFilter) in its own memory.
func halveInPlace(f gramFilter) gramFilter {
	h := f[:len(f)/2]
	halveFilter(h, f)
	return h
}

// blobIndex finds blobs by their key: an open-addressing table of blob
// ids (0, never a blob's, marks a free slot), at most half full, probed
// linearly from the low bits of the key's hash. It takes 8 to 16 bytes a
// blob where a map took about 30.
type blobIndex struct {
	slots []uint32
	n     int
}

// find returns the id of the blob whose key (in keys, by id) is key.
func (ix *blobIndex) find(keys []blobKey, key blobKey) (uint32, bool) {
	if len(ix.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(ix.slots) - 1)
	for i := key.sum & mask; ; i = (i + 1) & mask {
		id := ix.slots[i]
		if id == 0 {
			return 0, false
		}
		if keys[id] == key {
			return id, true
		}
	}
}

// insert adds id, whose key is keys[id] and not in the table yet.
func (ix *blobIndex) insert(keys []blobKey, id uint32) {
	if 2*(ix.n+1) > len(ix.slots) {
		old := ix.slots
		ix.slots = make([]uint32, max(64, 2*len(old)))
		for _, o := range old {
			if o != 0 {
				ix.place(keys, o)
			}
		}
	}
	ix.place(keys, id)
	ix.n++
}

func (ix *blobIndex) place(keys []blobKey, id uint32) {
	mask := uint64(len(ix.slots) - 1)
	i := keys[id].sum & mask
	for ix.slots[i] != 0 {
		i = (i + 1) & mask
	}
	ix.slots[i] = id
}

// remove takes id (keys[id] still its key) out, moving back the entries
// after it that would no longer be found.
func (ix *blobIndex) remove(keys []blobKey, id uint32) {
	if len(ix.slots) == 0 {
		return
	}
	mask := uint64(len(ix.slots) - 1)
	i := keys[id].sum & mask
	for ix.slots[i] != id {
		if ix.slots[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	ix.slots[i] = 0
	ix.n--
	for j := (i + 1) & mask; ix.slots[j] != 0; j = (j + 1) & mask {
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		home := keys[ix.slots[j]].sum & mask
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			ix.slots[i], ix.slots[j] = ix.slots[j], 0
			i = j
		}
	}
}

// contentFilter is what a grep asks of the index's listing: binary files
// left out, and, with a query, the files whose content cannot match; the
// overlay's files are always kept (their text is not what was filtered).
type contentFilter struct {
	q       *gramQuery
	overlay map[string][]byte
	// verdict caches each blob's answer: 0 not asked, 1 no, 2 may match.
	verdict []uint8
}

// keep reports whether the file rel (valid only during the call) with
// the given blob must be read.
func (c *contentFilter) keep(t *contentTable, rel string, blob uint32) bool {
	if blob < blobBinary {
		return true
	}
	if _, open := c.overlay[rel]; open {
		return true
	}
	if blob == blobBinary {
		return false
	}
	if c.q == nil {
		return true
	}
	if c.verdict == nil {
		c.verdict = make([]uint8, len(t.filters))
	}
	if c.verdict[blob] == 0 {
		c.verdict[blob] = 1
		if c.q.folded && t.folds(blob) || c.q.mayMatch(t.filter(blob)) {
			c.verdict[blob] = 2
		}
	}
	return c.verdict[blob] == 2
}

// indexContents is the content indexer: it waits until a folder of the
// index has files of unknown content (ready with the whole index, later
// after changes), lets the changes settle, and reads them. It ends with the
// index.
func (x *Index) indexContents(w watcher, t *contentTable) {
	first := true
	for {
		x.mu.Lock()
		if x.w != w || x.content != t {
			x.mu.Unlock()
			return
		}
		dirs := slices.Collect(maps.Keys(t.dirty))
		// A new map: clear would keep the buckets the whole tree's
		// folders needed at the build.
		t.dirty = map[*indexDir]struct{}{}
		x.mu.Unlock()
		if len(dirs) > 0 {
			x.contentPass(w, t, dirs)
		}
		x.mu.Lock()
		if x.w != w || x.content != t {
			x.mu.Unlock()
			return
		}
		files, size := t.files, t.bytes
		if first {
			x.status.FilterTime = max(time.Since(x.readyAt), time.Millisecond)
		}
		x.notifyLocked()
		took := x.status.FilterTime
		x.mu.Unlock()
		if first {
			first = false
			// As after the build: the pass's garbage (the read buffers
			// grown for large files) goes back now.
			debug.FreeOSMemory()
			x.log.Info("file contents indexed", "folder", x.folder, "files", files,
				"filterBytes", size, "ms", took.Milliseconds())
		}
		select {
		case <-x.ctx.Done():
			return
		case <-t.poke:
		}
		select {
		case <-x.ctx.Done():
			return
		case <-time.After(contentSettle):
		}
	}
}

// placed names one file of folder n.
type placed struct {
	n    *indexDir
	name string
}

// pendingLocked returns the entry of p if it is still being read (no change
// since it was marked), else nil.
func (x *Index) pendingLocked(p placed) *indexFile {
	if x.byWd[p.n.wd] != p.n {
		return nil
	}
	i, found := slices.BinarySearchFunc(p.n.files, p.name, func(f indexFile, name string) int { return strings.Compare(f.name, name) })
	if !found || p.n.files[i].blob != blobPending {
		return nil // changed since: the change marked it unknown again
	}
	return &p.n.files[i]
}

// contentPass reads the files of unknown content in dirs, a folder at a
// time on each of up to GOMAXPROCS goroutines, each file once: a file
// whose content (its size and hash) the table holds gets its blob at once;
// for a new content, a filter is built from the bytes just read and added
// to the table at the size it allows (add), and the file gets it at once.
// Searches use each filter as soon as it is placed.
func (x *Index) contentPass(w watcher, t *contentTable, dirs []*indexDir) {
	x.mu.Lock()
	if x.w != w || x.content != t {
		x.mu.Unlock()
		return
	}
	t.bits = gramBits
	x.mu.Unlock()
	parallel(len(dirs), func(next func() (int, bool)) {
		r := contentReader{bp: getBuf()}
		defer putBuf(r.bp)
		for {
			i, ok := next()
			if !ok || x.ctx.Err() != nil {
				return
			}
			if !x.readDir(w, t, dirs[i], &r) {
				return
			}
		}
	})
}

// contentReader is what one goroutine of a pass reuses from file to file.
type contentReader struct {
	bp     *[]byte
	grams  *gramSet // made at the first new content
	filter gramFilter
}

// readDir marks the files of unknown content in folder n as being read,
// then reads each and records what it holds (contentPass). It returns
// false when the index has moved on from w and t.
func (x *Index) readDir(w watcher, t *contentTable, n *indexDir, r *contentReader) bool {
	live := func() bool { return x.w == w && x.content == t }
	x.mu.Lock()
	if !live() {
		x.mu.Unlock()
		return false
	}
	if x.byWd[n.wd] != n {
		x.mu.Unlock()
		return true
	}
	var names []string
	var sizes []int64
	for i := range n.files {
		if f := &n.files[i]; f.blob == blobUnknown {
			f.blob = blobPending
			names, sizes = append(names, f.name), append(sizes, f.size)
		}
	}
	x.mu.Unlock()
	if len(names) == 0 {
		return true
	}
	h, err := openStartDir(x.root, n.rel)
	if h != nil {
		defer h.close()
	}
	for i, name := range names {
		p := placed{n, name}
		state, data := blobUnfiltered, []byte(nil)
		if err == nil && x.ctx.Err() == nil && sizes[i] < maxFilteredSize {
			data, state = readForFilter(h, name, r.bp, sizes[i])
		}
		if state == 0 && x.opts.afterContentRead != nil {
			x.opts.afterContentRead(joinRel(n.rel, name))
		}
		var key blobKey
		if state == 0 {
			key = blobKey{size: int64(len(data)), sum: maphash.Bytes(t.seed, data)}
		}
		x.mu.Lock()
		if !live() {
			x.mu.Unlock()
			return false
		}
		f := x.pendingLocked(p)
		switch {
		case f == nil: // changed since: the change marked it unknown again
			x.mu.Unlock()
			continue
		case state == blobBinary:
			f.blob = blobBinary
			t.files++
			x.mu.Unlock()
			continue
		case state == blobUnfiltered:
			f.blob = blobUnfiltered
			t.unfiltered++
			x.mu.Unlock()
			continue
		}
		if id, ok := t.ref(key); ok {
			f.blob = id
			x.mu.Unlock()
			continue
		}
		bits := t.bits
		x.mu.Unlock()

		if r.grams == nil {
			r.grams = newGramSet()
		}
		r.filter = buildGramFilter(r.filter, r.grams.of(data), bits)
		folds := foldsToASCII(data)
		x.mu.Lock()
		if !live() {
			x.mu.Unlock()
			return false
		}
		if f := x.pendingLocked(p); f != nil {
			if id, ok := t.add(key, r.filter, bits, folds); ok {
				f.blob = id
			} else {
				f.blob = blobUnfiltered // over the budget
				t.unfiltered++
			}
		}
		x.mu.Unlock()
		if x.opts.filterPlaced != nil {
			x.opts.filterPlaced()
		}
	}
	return true
}

// parallel runs work on up to GOMAXPROCS goroutines (never more than n)
// and waits for them; each takes the indexes 0..n-1 one at a time from
// next until it says there are no more.
func parallel(n int, work func(next func() (int, bool))) {
	var taken atomic.Int64
	next := func() (int, bool) {
		i := int(taken.Add(1)) - 1
		return i, i < n
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() { work(next) })
	}
	wg.Wait()
}

// readForFilter reads the file name of h into *bp (growing it) and returns
// its bytes with state 0, or the state it gets without a filter: binary, or
// unfiltered (too large, unreadable).
func readForFilter(h dirHandle, name string, bp *[]byte, size int64) ([]byte, uint32) {
	data, err := h.readFile(name, *bp, true, maxFilteredSize, size)
	if cap(data) > cap(*bp) {
		*bp = data[:0]
	}
	switch {
	case errors.Is(err, errBinary) || (err == nil && isBinary(data)):
		return nil, blobBinary
	case err != nil:
		return nil, blobUnfiltered
	}
	return data, 0
}

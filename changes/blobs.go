package changes

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// blobData is a content ready to store: its id (the hex SHA-256 of the
// content), the content, and its compressed bytes once packed. A delta
// (base not "") stores only the bytes between the first prefix and the last
// suffix bytes it shares with its base, compressed.
type blobData struct {
	id     string
	raw    []byte
	packed []byte

	base           string
	prefix, suffix int64
	// against, when set, is the content b replaces, which packBlobs may
	// make b a delta of.
	against *blobData
}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

func blobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// newBlob hashes data.
func (j *Journal) newBlob(data []byte) *blobData {
	return &blobData{id: blobID(data), raw: data}
}

// minDelta is the least number of bytes a content must share with its base
// for a delta to be stored instead of the whole content.
const minDelta = 4 << 10

// packAgainst compresses b, as a delta of base when they share at least
// half of b's bytes at their ends (base is the content before an edit, b
// the content after it). baseDepth is the base's depth of deltas.
func (b *blobData) packAgainst(base *blobData, baseDepth int) {
	if b.packed != nil {
		return
	}
	a, c := base.raw, b.raw
	p := commonPrefix(a, c)
	s := commonSuffix(a[p:], c[p:])
	if baseDepth >= maxDeltaDepth || p+s < minDelta || 2*(p+s) < len(c) {
		b.pack()
		return
	}
	b.base, b.prefix, b.suffix = base.id, int64(p), int64(s)
	b.packed = deflate(c[p : len(c)-s])
}

// commonPrefix returns the length of the common prefix of a and b.
func commonPrefix[T ~string | ~[]byte](a, b T) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && string(a[i:i+64]) == string(b[i:i+64]) {
		i += 64
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns the length of the common suffix of a and b.
func commonSuffix[T ~string | ~[]byte](a, b T) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && string(a[len(a)-i-64:len(a)-i]) == string(b[len(b)-i-64:len(b)-i]) {
		i += 64
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// deltaPrefix is the start of a delta record's payload after blobPrefix.
func (b *blobData) deltaPrefix(stored int64) []byte {
	buf := blobPrefix(b.base, 0)[:32]
	buf = append(blobPrefix(b.id, stored), buf...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(b.prefix))
	return binary.BigEndian.AppendUint64(buf, uint64(b.suffix))
}

func (b *blobData) pack() {
	if b.packed == nil {
		b.packed = deflate(b.raw)
	}
}

func deflate(data []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(data)/3 + 64)
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	w.Write(data)
	w.Close()
	flateWriters.Put(w)
	return buf.Bytes()
}

func (j *Journal) blobPath(id string) string {
	return filepath.Join(j.dir, blobsDir, id[:2], id[2:])
}

// storedSize returns the compressed size of blob id and whether the journal
// has it, as far as the view has read. Called with j.mu held.
func (j *Journal) storedSize(id string) (int64, bool) {
	if j.view == nil {
		return 0, false
	}
	loc, ok := j.view.blobs[id]
	if ok && loc.off < 0 {
		if _, err := os.Lstat(j.blobPath(id)); err != nil {
			return 0, false // removed with the entry that stored it
		}
	}
	return loc.size, ok
}

// blobRecords appends to buf the records of the blobs of bs the journal does
// not have yet, writing those larger than largeBlob to files of their own,
// and returns their ids. Called with the file lock held.
func (j *Journal) blobRecords(buf []byte, bs []*blobData) ([]byte, []string, error) {
	var added []string
	now := j.o.Now().UnixNano()
	for _, b := range bs {
		if _, ok := j.storedSize(b.id); ok || slices.Contains(added, b.id) {
			continue
		}
		if b.base != "" {
			if _, ok := j.storedSize(b.base); ok || slices.Contains(added, b.base) {
				buf = appendFrame(buf, recDelta, b.deltaPrefix(now), b.packed)
				added = append(added, b.id)
				continue
			}
			b.base, b.packed = "", nil // its base went meanwhile: store it whole
		}
		b.pack()
		if len(b.packed) <= largeBlob {
			buf = appendFrame(buf, recBlob, blobPrefix(b.id, now), b.packed)
			added = append(added, b.id)
			continue
		}
		name := j.blobPath(b.id)
		err := os.MkdirAll(filepath.Dir(name), 0o700)
		if err == nil {
			err = j.writeFile(name, b.packed)
		}
		if err != nil {
			return nil, nil, errors.Join(fmt.Errorf("store blob: %w", err), j.removeLarge(added))
		}
		buf = appendFrame(buf, recLarge, binary.BigEndian.AppendUint64(blobPrefix(b.id, now), uint64(len(b.packed))))
		added = append(added, b.id)
	}
	return buf, added, nil
}

// removeLarge removes the files of the large blobs among ids that no entry
// or snapshot index refers to. Called with the file lock held.
func (j *Journal) removeLarge(ids []string) error {
	var large []string
	for _, id := range ids {
		if loc, ok := j.view.blobs[id]; !ok || loc.off < 0 {
			large = append(large, id)
		}
	}
	if len(large) == 0 {
		return nil
	}
	refs, err := j.references()
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range large {
		if refs[id] == 0 {
			if err := os.Remove(j.blobPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// blobBatch collects the blobs a snapshot stores and appends them to the
// log a few MiB at a time, so that a snapshot of thousands of files takes
// the lock and writes a handful of times. A batch that cannot be stored is
// logged: the index records that name its blobs are then found missing when
// the index is saved, and read again by the next snapshot.
type blobBatch struct {
	j *Journal

	mu sync.Mutex
	bs []*blobData
	n  int
}

const batchBytes = 4 << 20

func (bb *blobBatch) add(b *blobData) {
	bb.mu.Lock()
	bb.bs = append(bb.bs, &blobData{id: b.id, packed: b.packed})
	bb.n += len(b.packed)
	var full []*blobData
	if bb.n >= batchBytes {
		full, bb.bs, bb.n = bb.bs, nil, 0
	}
	bb.mu.Unlock()
	bb.store(full)
}

func (bb *blobBatch) flush() {
	bb.mu.Lock()
	rest := bb.bs
	bb.bs, bb.n = nil, 0
	bb.mu.Unlock()
	bb.store(rest)
}

func (bb *blobBatch) store(bs []*blobData) {
	if len(bs) == 0 {
		return
	}
	j := bb.j
	err := j.locked(func() error {
		buf, _, err := j.blobRecords(nil, bs)
		if err != nil || len(buf) == 0 {
			return err
		}
		return j.appendLog(buf, nil)
	})
	if err != nil {
		j.log.Warn("change journal: snapshot contents not stored", "blobs", len(bs), "err", err)
	}
}

// Blob returns the content whose id a FileRecord names, checked against
// its id.
func (j *Journal) Blob(id string) ([]byte, error) {
	if len(id) != 64 {
		return nil, fmt.Errorf("blob %q: %w", id, ErrNotFound)
	}
	if _, err := hex.DecodeString(id); err != nil {
		return nil, fmt.Errorf("blob %q: %w", id, ErrNotFound)
	}
	data, err := j.blob(id, maxDeltaDepth)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, err)
	}
	if blobID(data) != id {
		return nil, fmt.Errorf("blob %s: %w", id, ErrDamaged)
	}
	return data, nil
}

// blob reads blob id, following at most depth deltas, without checking its
// hash.
func (j *Journal) blob(id string, depth int) ([]byte, error) {
	var packed io.Reader
	var loc blobLoc
	err := j.read(func(v *logView) error {
		var ok bool
		if loc, ok = v.blobs[id]; !ok {
			return ErrNotFound
		}
		if loc.off < 0 {
			return nil
		}
		b := make([]byte, loc.size)
		if _, err := j.logf.ReadAt(b, loc.off); err != nil {
			return err
		}
		packed = bytes.NewReader(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if packed == nil {
		f, err := os.Open(j.blobPath(id))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotFound
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		packed = f
	}
	r := flate.NewReader(packed)
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, ErrDamaged
	}
	if loc.base == "" {
		return data, nil
	}
	if depth <= 0 {
		return nil, ErrDamaged
	}
	base, err := j.blob(loc.base, depth-1)
	if err != nil {
		return nil, err
	}
	if loc.prefix+loc.suffix > int64(len(base)) {
		return nil, ErrDamaged
	}
	out := make([]byte, 0, loc.prefix+int64(len(data))+loc.suffix)
	out = append(out, base[:loc.prefix]...)
	out = append(out, data...)
	return append(out, base[int64(len(base))-loc.suffix:]...), nil
}

// references counts, for every blob, the committed and pending entries and
// the snapshot indexes that refer to it. Called with the file lock held.
func (j *Journal) references() (map[string]int, error) {
	refs := make(map[string]int)
	for _, e := range j.view.entries {
		if e.state != stateAborted {
			countRefs(refs, e.pf.Entry, 1)
		}
	}
	if err := j.indexRefs(refs); err != nil {
		return nil, err
	}
	return refs, nil
}

func countRefs(refs map[string]int, e Entry, d int) {
	for _, f := range e.Files {
		if f.Before != "" {
			refs[f.Before] += d
		}
		if f.After != "" {
			refs[f.After] += d
		}
	}
}

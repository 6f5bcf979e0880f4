package changes

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// blobData is a content ready to store: its id (the hex SHA-256 of the
// content), the content, and its compressed bytes once packed.
type blobData struct {
	id     string
	raw    []byte
	packed []byte
}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

func blobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// newBlob hashes data, and compresses it unless the journal has it.
func (j *Journal) newBlob(data []byte) *blobData {
	b := &blobData{id: blobID(data), raw: data}
	if _, err := os.Lstat(j.blobPath(b.id)); err != nil {
		b.pack()
	}
	return b
}

func (b *blobData) pack() {
	if b.packed != nil {
		return
	}
	var buf bytes.Buffer
	buf.Grow(len(b.raw)/3 + 64)
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	w.Write(b.raw)
	w.Close()
	flateWriters.Put(w)
	b.packed = buf.Bytes()
}

func (j *Journal) blobPath(id string) string {
	return filepath.Join(j.dir, blobsDir, id[:2], id[2:])
}

// putBlob stores b unless a blob with its id is there already. It reports
// the bytes written and whether it stored it.
func (j *Journal) putBlob(b *blobData) (int64, bool, error) {
	name := j.blobPath(b.id)
	if _, err := os.Lstat(name); err == nil {
		return 0, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return 0, false, err
	}
	b.pack()
	if err := j.writeFile(name, b.packed); err != nil {
		return 0, false, fmt.Errorf("store blob: %w", err)
	}
	return int64(len(b.packed)), true, nil
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
	f, err := os.Open(j.blobPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, err)
	}
	defer f.Close()
	r := flate.NewReader(f)
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil || blobID(data) != id {
		return nil, fmt.Errorf("blob %s: %w", id, ErrDamaged)
	}
	return data, nil
}

// blobSize returns the stored size of blob id, 0 when it is absent.
func (j *Journal) blobSize(id string) int64 {
	fi, err := os.Lstat(j.blobPath(id))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// removeBlobs removes the blobs ids that nothing but the entry except
// refers to. Called with the lock held.
func (j *Journal) removeBlobs(ids []string, except string) error {
	if len(ids) == 0 {
		return nil
	}
	refs, err := j.references(except)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		if refs[id] == 0 {
			if err := os.Remove(j.blobPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// references counts, for every blob, the committed and pending entries
// (other than except) and snapshot indexes that refer to it. Called with the
// lock held.
func (j *Journal) references(except string) (map[string]int, error) {
	refs := make(map[string]int)
	for _, sub := range []string{entriesDir, pendingDir} {
		ids, err := listIDs(filepath.Join(j.dir, sub))
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if id == except {
				continue
			}
			e, err := j.readEntry(sub, id)
			if err != nil {
				j.log.Warn("change journal: entry unreadable while counting references", "id", id, "err", err)
				continue
			}
			countRefs(refs, e, 1)
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

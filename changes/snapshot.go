package changes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/workspace"
)

// racyWindow is how close to the moment a file was last verified its mtime
// may be for a later equal stat still to prove nothing: a write in the same
// timestamp tick leaves the stat as it was, so such files are read again.
const racyWindow = 2 * time.Second

// indexRecord is what the index knows of one file.
type indexRecord struct {
	Size, Mtime, Ctime int64
	Ino                uint64
	Blob               string // "" when the content is not stored
	Stored             int64  // the blob's stored size
	Skip               string // why the content is not stored ("" = it is, or it must be read again)
	Seen               int64  // when the content was verified (Unix ns)
}

func (r indexRecord) sameStat(fi fs.FileInfo) bool {
	ino, ctime := statID(fi)
	return r.Size == fi.Size() && r.Mtime == fi.ModTime().UnixNano() && r.Ino == ino && r.Ctime == ctime
}

// trusted reports whether an equal stat proves the content is still what
// the record says.
func (r indexRecord) trusted() bool {
	return (r.Blob != "" || r.Skip != "") && r.Mtime < r.Seen-int64(racyWindow)
}

// fileIndex is a workspace root's index: what each file was at the last
// snapshot, by slash path relative to the root.
type fileIndex struct {
	Version int
	Root    string
	Files   map[string]indexRecord
}

const indexVersion = 1

type cachedIndex struct {
	idx     *fileIndex
	modTime time.Time
	size    int64
}

func (j *Journal) indexPath(rootPath string) string {
	sum := sha256.Sum256([]byte(rootPath))
	return filepath.Join(j.dir, indexDir, hex.EncodeToString(sum[:8])+".gob")
}

// loadIndex returns the index stored at name, from memory when the file is
// the one last read or written; a missing or unreadable index is empty. The
// result is shared: callers do not modify it.
func (j *Journal) loadIndex(name string) *fileIndex {
	fi, err := os.Stat(name)
	if err != nil {
		return &fileIndex{Version: indexVersion, Files: map[string]indexRecord{}}
	}
	j.indexMu.Lock()
	c := j.indexes[name]
	j.indexMu.Unlock()
	if c != nil && c.modTime.Equal(fi.ModTime()) && c.size == fi.Size() {
		return c.idx
	}
	idx := &fileIndex{}
	f, err := os.Open(name)
	if err == nil {
		err = gob.NewDecoder(io.Reader(f)).Decode(idx)
		f.Close()
	}
	if err != nil || idx.Version != indexVersion || idx.Files == nil {
		j.log.Warn("change journal: snapshot index unreadable, starting afresh", "index", name, "err", err)
		return &fileIndex{Version: indexVersion, Files: map[string]indexRecord{}}
	}
	j.indexMu.Lock()
	j.indexes[name] = &cachedIndex{idx: idx, modTime: fi.ModTime(), size: fi.Size()}
	j.indexMu.Unlock()
	return idx
}

// saveIndex writes idx to name, first checking, under the lock, that the
// blobs of the records in fresh are still there (a concurrent size trim may
// have removed one; that record is then marked to be read again).
func (j *Journal) saveIndex(name string, idx *fileIndex, fresh []string) error {
	return j.locked(func() error {
		for _, rel := range fresh {
			r := idx.Files[rel]
			if r.Blob == "" {
				continue
			}
			if _, ok := j.storedSize(r.Blob); !ok {
				r.Blob, r.Stored = "", 0
				idx.Files[rel] = r
			}
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(idx); err != nil {
			return err
		}
		if err := j.writeFile(name, buf.Bytes()); err != nil {
			return err
		}
		j.indexCounted = time.Time{} // count the indexes again at the next commit
		if fi, err := os.Stat(name); err == nil {
			j.indexMu.Lock()
			j.indexes[name] = &cachedIndex{idx: idx, modTime: fi.ModTime(), size: fi.Size()}
			j.indexMu.Unlock()
		}
		return nil
	})
}

// indexRefs adds the blobs every snapshot index refers to. Called with the
// lock held.
func (j *Journal) indexRefs(refs map[string]int) error {
	des, err := os.ReadDir(filepath.Join(j.dir, indexDir))
	if err != nil {
		return err
	}
	for _, de := range des {
		if filepath.Ext(de.Name()) != ".gob" {
			continue
		}
		for _, r := range j.loadIndex(filepath.Join(j.dir, indexDir, de.Name())).Files {
			if r.Blob != "" {
				refs[r.Blob]++
			}
		}
	}
	return nil
}

// Snapshot is the state of a workspace root's files at one moment, taken
// before a shell task so that Changes can tell what the task did.
type Snapshot struct {
	j        *Journal
	root     *os.Root
	rootPath string
	ig       *workspace.Ignorer
	index    string
	base     *fileIndex
}

// Skipped is a file a task changed whose change cannot be journaled.
type Skipped struct {
	Path   string // absolute
	Reason string
}

// Snapshot records the regular files under root (rootPath is its absolute
// path) that ig does not ignore: it stats every file and reads, hashes and
// stores only those whose size, mtime, inode or change time differ from the
// journal's index of the root (on the first snapshot, all of them; files
// whose mtime is within two seconds of when they were last read are read
// again). Files larger than Options.MaxFileBytes, and files past half of
// Options.MaxBytes of stored content, are recorded without content.
// Symlinks and other non-regular files are not recorded.
func (j *Journal) Snapshot(ctx context.Context, root *os.Root, rootPath string, ig *workspace.Ignorer) (*Snapshot, error) {
	name := j.indexPath(rootPath)
	old := j.loadIndex(name)
	idx, fresh, err := j.scan(ctx, root, ig, old, nil)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", rootPath, err)
	}
	idx.Root = rootPath
	if len(fresh) > 0 || len(idx.Files) != len(old.Files) {
		if err := j.saveIndex(name, idx, fresh); err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", rootPath, err)
		}
	}
	return &Snapshot{j: j, root: root, rootPath: rootPath, ig: ig, index: name, base: idx}, nil
}

// Changes returns the files under the root that were created, changed or
// deleted since the Snapshot, sorted by path, ready for Begin (Where is
// disk), and the changed files whose content cannot be journaled (too
// large, or not stored at the snapshot). It stores the new contents and
// makes the new state the index the next Snapshot starts from. A file that
// is no longer listed but still exists (it became ignored, or its folder
// unreadable) is not reported as deleted.
func (s *Snapshot) Changes(ctx context.Context) ([]FileChange, []Skipped, error) {
	j := s.j
	var out []FileChange
	var skipped []Skipped
	report := func(rel string, before indexRecord, had bool, after []byte, afterRec indexRecord, exists bool) error {
		abs := filepath.Join(s.rootPath, filepath.FromSlash(rel))
		fc := FileChange{Path: abs, Where: WhereDisk, BeforeExists: had, After: after, AfterExists: exists}
		switch {
		case exists && afterRec.Blob == "":
			skipped = append(skipped, Skipped{Path: abs, Reason: afterRec.Skip})
			return nil
		case had && before.Blob == "":
			reason := before.Skip
			if reason == "" {
				reason = "its content before the task was not stored"
			}
			skipped = append(skipped, Skipped{Path: abs, Reason: reason})
			return nil
		case had:
			b, err := j.Blob(before.Blob)
			if err != nil {
				skipped = append(skipped, Skipped{Path: abs, Reason: "its content before the task is no longer in the journal"})
				return nil
			}
			fc.Before = b
		}
		out = append(out, fc)
		return nil
	}
	idx, fresh, err := j.scan(ctx, s.root, s.ig, s.base, report)
	if err != nil {
		return nil, nil, fmt.Errorf("changes under %s: %w", s.rootPath, err)
	}
	for rel, r := range s.base.Files {
		if _, ok := idx.Files[rel]; ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if fi, err := s.root.Lstat(rel); err == nil && fi.Mode().IsRegular() {
			continue // still there, no longer listed
		}
		if err := report(rel, r, true, nil, indexRecord{}, false); err != nil {
			return nil, nil, err
		}
	}
	idx.Root = s.rootPath
	if len(fresh) > 0 || len(idx.Files) != len(s.base.Files) {
		if err := j.saveIndex(s.index, idx, fresh); err != nil {
			return nil, nil, fmt.Errorf("changes under %s: %w", s.rootPath, err)
		}
	}
	slices.SortFunc(out, func(a, b FileChange) int { return cmpString(a.Path, b.Path) })
	slices.SortFunc(skipped, func(a, b Skipped) int { return cmpString(a.Path, b.Path) })
	return out, skipped, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// changeFunc receives a file whose content differs from the old index:
// before is its old record (had false: it is new), after its new content
// and record.
type changeFunc func(rel string, before indexRecord, had bool, after []byte, afterRec indexRecord, exists bool) error

// scan walks root and returns the new index, the paths whose records it
// made from reading the file, and, when changed is not nil, calls it for
// every file whose content differs from old.
func (j *Journal) scan(ctx context.Context, root *os.Root, ig *workspace.Ignorer, old *fileIndex, changed changeFunc) (*fileIndex, []string, error) {
	start := j.o.Now().UnixNano()
	idx := &fileIndex{Version: indexVersion, Files: make(map[string]indexRecord, len(old.Files))}
	var stored int64
	var toRead []string
	err := workspace.Walk(ctx, root, ig, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if r, ok := old.Files[rel]; ok && r.sameStat(fi) && r.trusted() {
			idx.Files[rel] = r
			stored += r.Stored
			return nil
		}
		toRead = append(toRead, rel)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	type result struct {
		rel  string
		rec  indexRecord
		data []byte
		ok   bool
	}
	results := make([]result, len(toRead))
	var next sync.Mutex
	k := 0
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 8, len(toRead))
	budget := j.o.MaxBytes / 2
	var budgetMu sync.Mutex
	batch := &blobBatch{j: j}
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				next.Lock()
				i := k
				k++
				next.Unlock()
				if i >= len(toRead) {
					return
				}
				rel := toRead[i]
				rec, data, ok := j.readRecord(root, rel, start, old.Files[rel], batch, func(n int64) bool {
					budgetMu.Lock()
					defer budgetMu.Unlock()
					if stored+n > budget {
						return false
					}
					stored += n
					return true
				})
				if changed == nil || rec.Blob != "" && rec.Blob == old.Files[rel].Blob {
					data = nil // only a changed file's new content is reported
				}
				results[i] = result{rel: rel, rec: rec, data: data, ok: ok}
			}
		})
	}
	wg.Wait()
	batch.flush()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var fresh []string
	for _, r := range results {
		if !r.ok {
			continue // vanished while walking
		}
		idx.Files[r.rel] = r.rec
		fresh = append(fresh, r.rel)
		if changed == nil {
			continue
		}
		before, had := old.Files[r.rel]
		if had && before.Blob != "" && before.Blob == r.rec.Blob {
			continue
		}
		if err := changed(r.rel, before, had, r.data, r.rec, true); err != nil {
			return nil, nil, err
		}
	}
	return idx, fresh, nil
}

// readRecord reads one file and stores its content through batch unless it
// is too large or reserve refuses its stored size. ok is false when the file
// cannot be opened as a regular file.
func (j *Journal) readRecord(root *os.Root, rel string, seen int64, old indexRecord, batch *blobBatch, reserve func(int64) bool) (indexRecord, []byte, bool) {
	f, err := root.Open(rel)
	if err != nil {
		return indexRecord{}, nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return indexRecord{}, nil, false
	}
	ino, ctime := statID(fi)
	rec := indexRecord{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ctime: ctime, Ino: ino, Seen: seen}
	if fi.Size() > j.o.MaxFileBytes {
		rec.Skip = fmt.Sprintf("larger than %d MiB, not stored", j.o.MaxFileBytes>>20)
		return rec, nil, true
	}
	data, err := io.ReadAll(io.LimitReader(f, j.o.MaxFileBytes+1))
	if err != nil || int64(len(data)) > j.o.MaxFileBytes {
		rec.Skip = "unreadable, not stored"
		return rec, nil, true
	}
	b := &blobData{id: blobID(data), raw: data}
	if b.id == old.Blob {
		rec.Blob, rec.Stored = old.Blob, old.Stored
		return rec, data, true
	}
	j.mu.Lock()
	size, known := j.storedSize(b.id)
	j.mu.Unlock()
	if known {
		rec.Blob, rec.Stored = b.id, size
		return rec, data, true
	}
	b.pack()
	if !reserve(int64(len(b.packed))) {
		rec.Skip = "past the journal's size bound, not stored"
		return rec, data, true
	}
	batch.add(b)
	rec.Blob, rec.Stored = b.id, int64(len(b.packed))
	return rec, data, true
}

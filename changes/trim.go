package changes

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// compactDead is the least number of dead bytes (aborted entries and their
// blobs, damaged or repeated records) that makes maintain compact the log
// once they are also a quarter of it.
const compactDead = 1 << 20

// maintain compacts the log when the journal passed Options.MaxBytes
// (dropping the oldest entries but keep) or when dead records are a quarter
// of it. Called with the file lock held; a failure is logged, the log stays
// as it was.
func (j *Journal) maintain(keep string) {
	v := j.view
	var err error
	switch {
	case v.end+v.large+j.indexBytes(v.end+v.large) > j.o.MaxBytes:
		err = j.compact(keep, true)
	case v.dead > compactDead && v.dead > v.end/4:
		err = j.compact("", false)
	}
	if err != nil {
		j.log.Warn("change journal: log not compacted, size bound not enforced", "err", err)
	}
}

// indexBytes returns the size of the snapshot indexes. It reads the index
// folder again only when the journal's other bytes, others, bring it near
// MaxBytes or the last count is older than indexRecount, so that a commit
// far from the bound does not pay for it. Called with j.mu held.
func (j *Journal) indexBytes(others int64) int64 {
	now := time.Now()
	if others+j.indexSize < j.o.MaxBytes/10*9 && now.Sub(j.indexCounted) < indexRecount {
		return j.indexSize
	}
	des, err := os.ReadDir(filepath.Join(j.dir, indexDir))
	if err != nil {
		return j.indexSize
	}
	var n int64
	for _, de := range des {
		if fi, err := de.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	j.indexSize, j.indexCounted = n, now
	return n
}

// indexRecount is how long a count of the index folder's size is trusted
// far from the size bound.
const indexRecount = 5 * time.Second

// compact rewrites the log with only its live records: the pending entries,
// the committed ones (as one record each), and the blobs something refers
// to or that were stored less than PendingAge ago by no entry (a snapshot
// may be about to refer to them). With trim it first drops the oldest
// committed entries (never keep) until the journal uses at most 90% of
// MaxBytes. The new log is written under a temporary name and renamed over
// the old one; other processes notice the rename and read the new log
// afresh. Called with the file lock held.
func (j *Journal) compact(keep string, trim bool) error {
	v := j.view
	refs, err := j.references()
	if err != nil {
		return err
	}
	gone := map[string]bool{} // blobs whose entry was aborted or dropped
	for _, e := range v.entries {
		if e.state == stateAborted {
			for _, b := range e.pf.Added {
				gone[b] = true
			}
		}
	}
	drop := map[string]bool{}
	if trim {
		usage := v.end + v.large + j.indexBytes(0) - v.dead
		target := j.o.MaxBytes / 10 * 9
		for _, id := range v.ids {
			if usage <= target {
				break
			}
			e := v.entries[id]
			if e.state != stateCommitted || id == keep {
				continue
			}
			drop[id] = true
			usage -= e.record
			countRefs(refs, e.pf.Entry, -1)
			for _, f := range e.pf.Entry.Files {
				for _, b := range []string{f.Before, f.After} {
					if b == "" || refs[b] > 0 || gone[b] {
						continue
					}
					gone[b] = true
					if loc, ok := v.blobs[b]; ok && loc.off >= 0 {
						usage -= loc.record
					} else if ok {
						usage -= loc.size
					}
				}
			}
		}
	}
	now := j.o.Now().UnixNano()
	// A blob is live when something refers to it, when it is the base of a
	// live delta, or while it is young and stored by no entry that went.
	// Only the young keep their time: a blob that something used is dropped
	// by the first compaction after nothing does any more.
	live, young := map[string]bool{}, map[string]bool{}
	for i := len(v.blobOrder) - 1; i >= 0; i-- { // a delta comes after its base
		id := v.blobOrder[i]
		loc := v.blobs[id]
		switch {
		case live[id] || refs[id] > 0:
			live[id] = true
		case !gone[id] && loc.stored > 0 && now-loc.stored < int64(j.o.PendingAge):
			live[id], young[id] = true, true
		default:
			continue
		}
		if loc.base != "" {
			live[loc.base] = true
		}
	}

	tmp, err := os.CreateTemp(j.dir, ".log-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(j.headerRecord(nil, v.dropped+len(drop)))
	var buf []byte
	var unused []string // files of large blobs
	for _, id := range v.blobOrder {
		loc := v.blobs[id]
		if !live[id] {
			if loc.off < 0 {
				unused = append(unused, id)
			}
			continue
		}
		if !young[id] {
			loc.stored = 0
		}
		if loc.off < 0 {
			buf = appendFrame(buf[:0], recLarge, blobPrefix(id, loc.stored), binary.BigEndian.AppendUint64(nil, uint64(loc.size)))
			w.Write(buf)
			continue
		}
		packed := make([]byte, loc.size)
		if _, err := j.logf.ReadAt(packed, loc.off); err != nil {
			tmp.Close()
			return err
		}
		if loc.base != "" {
			d := blobData{id: id, base: loc.base, prefix: loc.prefix, suffix: loc.suffix}
			buf = appendFrame(buf[:0], recDelta, d.deltaPrefix(loc.stored), packed)
		} else {
			buf = appendFrame(buf[:0], recBlob, blobPrefix(id, loc.stored), packed)
		}
		w.Write(buf)
	}
	buf = buf[:0]
	for _, id := range v.ids {
		e := v.entries[id]
		typ := byte(recBegin)
		switch {
		case e.state == stateCommitted && !drop[id]:
			typ = recPublished
		case e.state != statePending:
			continue
		}
		raw, err := json.Marshal(e.pf)
		if err != nil {
			tmp.Close()
			return err
		}
		buf = appendFrame(buf, typ, raw)
	}
	w.Write(buf)
	err = w.Flush()
	if err == nil && j.o.Sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), j.logPath())
	}
	if err == nil && j.o.Sync {
		err = syncDir(j.dir)
	}
	if err != nil {
		return fmt.Errorf("compact change journal: %w", err)
	}
	for _, id := range unused {
		if err := os.Remove(j.blobPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			j.log.Warn("change journal: unused blob file left", "blob", id, "err", err)
		}
	}
	if len(drop) > 0 {
		j.log.Info("change journal: oldest entries dropped", "dropped", len(drop), "dropped_total", v.dropped+len(drop))
	}
	if err := j.reopen(); err != nil {
		return err
	}
	return j.catchUp(true)
}

// settlePending publishes or removes the entries that were begun and
// never committed or aborted by a process that is gone (killed between the
// change and its commit record), or begun longer than PendingAge ago where
// the system cannot tell: an entry is published when every file it changed
// on disk now holds what it wrote, and removed otherwise (a change to an
// editor buffer cannot be checked, so it is removed).
func (j *Journal) settlePending() error {
	return j.locked(func() error {
		var buf []byte
		var removed []string
		for _, id := range j.view.ids {
			e := j.view.entries[id]
			if e.state != statePending || (!ownerGone(e.pf.PID, e.pf.Start) && j.o.Now().Sub(e.pf.Entry.Time) < j.o.PendingAge) {
				continue
			}
			if happened(e.pf.Entry) {
				buf = appendFrame(buf, recCommit, []byte(id))
				j.log.Info("change journal: published an entry its process left pending", "id", id)
				continue
			}
			buf = appendFrame(buf, recAbort, []byte(id))
			removed = append(removed, e.pf.Added...)
			j.log.Info("change journal: removed an entry its process left pending", "id", id)
		}
		if len(buf) == 0 {
			return nil
		}
		if err := j.appendLog(buf, nil); err != nil {
			return fmt.Errorf("open change journal: %w", err)
		}
		if err := j.removeLarge(removed); err != nil {
			j.log.Warn("change journal: blobs of a stale entry left", "err", err)
		}
		j.maintain("")
		return nil
	})
}

// happened reports whether every file of e is on disk as e says it left it.
func happened(e Entry) bool {
	for _, f := range e.Files {
		if f.Where != WhereDisk {
			return false
		}
		data, err := os.ReadFile(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if f.After != "" {
				return false
			}
		case err != nil:
			return false
		case f.After == "" || blobID(data) != f.After:
			return false
		}
	}
	return true
}

package changes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// trim drops the oldest entries (never keep) and the blobs only they refer
// to until the journal uses at most 90% of MaxBytes, and counts exactly
// what it uses. Called with the lock held.
func (j *Journal) trim(st *lockState, keep string) error {
	usage, err := j.usage()
	if err != nil {
		return err
	}
	st.Bytes = usage
	if usage <= j.o.MaxBytes {
		return nil
	}
	target := j.o.MaxBytes / 10 * 9
	refs, err := j.references("")
	if err != nil {
		return err
	}
	ids, err := listIDs(filepath.Join(j.dir, entriesDir))
	if err != nil {
		return err
	}
	for _, id := range ids {
		if usage <= target {
			break
		}
		if id == keep {
			continue
		}
		name := filepath.Join(j.dir, entriesDir, id+".json")
		fi, err := os.Stat(name)
		if err != nil {
			continue
		}
		e, rerr := j.readEntry(entriesDir, id)
		if err := os.Remove(name); err != nil {
			return err
		}
		usage -= fi.Size()
		st.Dropped++
		if rerr != nil {
			continue
		}
		countRefs(refs, e, -1)
		for _, f := range e.Files {
			for _, b := range []string{f.Before, f.After} {
				if b == "" || refs[b] > 0 {
					continue
				}
				size := j.blobSize(b)
				if err := os.Remove(j.blobPath(b)); err == nil {
					usage -= size
				}
				refs[b] = 0
			}
		}
	}
	st.Bytes = usage
	j.log.Info("change journal: oldest entries dropped", "dropped_total", st.Dropped, "bytes", usage)
	return nil
}

// usage sums the sizes of the journal's files.
func (j *Journal) usage() (int64, error) {
	var n int64
	err := filepath.WalkDir(j.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n, err
}

// settlePending publishes or removes the entries that were begun longer
// than PendingAge ago and never committed or aborted: an entry is published
// when every file it changed on disk now holds what it wrote, and removed
// otherwise (a change to an editor buffer cannot be checked, so it is
// removed).
func (j *Journal) settlePending() error {
	return j.locked(func(st *lockState) error {
		dir := filepath.Join(j.dir, pendingDir)
		ids, err := listIDs(dir)
		if err != nil {
			return fmt.Errorf("open change journal: %w", err)
		}
		for _, id := range ids {
			name := filepath.Join(dir, id+".json")
			fi, err := os.Stat(name)
			if err != nil || j.o.Now().Sub(fi.ModTime()) < j.o.PendingAge {
				continue
			}
			var pf pendingFile
			raw, err := os.ReadFile(name)
			if err == nil {
				err = json.Unmarshal(raw, &pf)
			}
			if err == nil && pf.Entry.ID == id && happened(pf.Entry) {
				if err := os.Rename(name, filepath.Join(j.dir, entriesDir, id+".json")); err != nil {
					return fmt.Errorf("open change journal: %w", err)
				}
				j.log.Info("change journal: published an entry its process left pending", "id", id)
				continue
			}
			if err := os.Remove(name); err != nil {
				return fmt.Errorf("open change journal: %w", err)
			}
			st.Bytes = -1 // recount at the next commit
			if err := j.removeBlobs(pf.Added, id); err != nil {
				j.log.Warn("change journal: blobs of a stale entry left", "id", id, "err", err)
			}
			j.log.Info("change journal: removed an entry its process left pending", "id", id)
		}
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

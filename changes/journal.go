package changes

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxBytes     = 200 << 20
	DefaultMaxFileBytes = 8 << 20
	DefaultPendingAge   = time.Hour
)

// ErrNotFound is wrapped by the errors of Get, Blob, Diff and PlanRevert
// when an id names nothing in the journal (never written, or dropped by the
// size bound).
var ErrNotFound = errors.New("not in the journal")

// ErrDamaged is wrapped by errors about a stored entry or blob whose bytes
// are not what was written (a crash of the machine, or another program).
var ErrDamaged = errors.New("damaged in the journal")

// Options tune a Journal. The zero value is ready to use.
type Options struct {
	// MaxBytes bounds what the journal keeps on disk (entries, blobs and the
	// snapshot indexes); when a commit passes it, the oldest entries are
	// dropped until it is 90% full again. 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxFileBytes is the largest file a Snapshot stores; larger files are
	// reported by Changes as Skipped. 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// Root, when set, is the workspace folder: summaries and diffs name
	// files relative to it.
	Root string
	// Sync makes every blob and entry reach the disk (fsync) before it is
	// used. Without it a crash of the machine (not of the process) can lose
	// the newest entries or leave a damaged one, which is then reported,
	// never used.
	Sync bool
	// PendingAge is how old an entry begun but neither committed nor
	// aborted must be before Open settles it (its process is taken to have
	// died): it is published when every file on disk holds what it says it
	// wrote, else removed. 0 means DefaultPendingAge.
	PendingAge time.Duration
	// Log receives what the journal repairs or skips. nil discards.
	Log *slog.Logger
	// Now is the clock (a test hook). nil means time.Now.
	Now func() time.Time
}

// Journal is a workspace's record of what tool calls changed, kept in one
// folder and shared by every whale-ls process of the user for that
// workspace. It is safe for concurrent use by goroutines and by processes:
// every change to the folder happens under an exclusive lock on dir/lock,
// ids are unique and ordered by time across processes, and files appear
// under their final name only once complete.
type Journal struct {
	dir string
	o   Options
	log *slog.Logger

	// mu serialises this Journal's holders of the file lock (a flock is
	// held per open file, not per goroutine).
	mu    sync.Mutex
	lockf *os.File

	indexMu sync.Mutex
	indexes map[string]*cachedIndex // by index file name
}

// lockState is what the lock file holds: the journal's counters.
type lockState struct {
	Last    string `json:"last,omitempty"` // the newest id given out
	Bytes   int64  `json:"bytes"`          // the size of the folder, as far as counted
	Dropped int    `json:"dropped"`        // entries dropped by the size bound, ever
}

// Open opens the journal in dir, creating it (0700) when needed, and settles
// entries that a dead process left pending (see Options.PendingAge).
func Open(dir string, o Options) (*Journal, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.PendingAge <= 0 {
		o.PendingAge = DefaultPendingAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, sub := range []string{"", blobsDir, entriesDir, pendingDir, indexDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("open change journal: %w", err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open change journal: %w", err)
	}
	j := &Journal{dir: dir, o: o, log: log, lockf: f, indexes: make(map[string]*cachedIndex)}
	if err := j.settlePending(); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// Close releases the journal's lock file. Pending entries stay pending.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.lockf.Close()
}

// Folder names inside the journal's dir.
const (
	blobsDir   = "blobs"
	entriesDir = "entries"
	pendingDir = "pending"
	indexDir   = "index"
)

// locked runs fn holding the journal's lock, with the counters read from the
// lock file; they are written back when fn changes them.
func (j *Journal) locked(fn func(st *lockState) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := lockFile(j.lockf); err != nil {
		return fmt.Errorf("lock change journal: %w", err)
	}
	defer unlockFile(j.lockf)
	var st lockState
	raw, err := io.ReadAll(io.NewSectionReader(j.lockf, 0, 1<<20))
	if err != nil {
		return fmt.Errorf("read change journal state: %w", err)
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &st); err != nil {
			j.log.Warn("change journal: state unreadable, recounting", "err", err)
			st = lockState{Bytes: -1}
		}
	}
	old := st
	ferr := fn(&st)
	if st != old {
		b, _ := json.Marshal(st)
		if _, err := j.lockf.WriteAt(b, 0); err != nil {
			return errors.Join(ferr, fmt.Errorf("write change journal state: %w", err))
		}
		if err := j.lockf.Truncate(int64(len(b))); err != nil {
			return errors.Join(ferr, fmt.Errorf("write change journal state: %w", err))
		}
	}
	return ferr
}

const idTime = "20060102T150405.000000Z"

// nextID returns an id later than every id given out before: the time in
// microseconds (one more than the last id's when the clock has not moved on)
// and four random hex digits.
func (j *Journal) nextID(st *lockState) (string, time.Time) {
	now := j.o.Now().UTC().Truncate(time.Microsecond)
	if last, ok := idTimeOf(st.Last); ok && !now.After(last) {
		now = last.Add(time.Microsecond)
	}
	var r [2]byte
	rand.Read(r[:])
	id := now.Format(idTime) + "-" + hex.EncodeToString(r[:])
	st.Last = id
	return id, now
}

func idTimeOf(id string) (time.Time, bool) {
	if len(id) < len(idTime) {
		return time.Time{}, false
	}
	t, err := time.Parse(idTime, id[:len(idTime)])
	return t, err == nil
}

// validID reports whether id has the shape nextID gives, so that it can
// name a file.
func validID(id string) bool {
	_, ok := idTimeOf(id)
	if !ok || len(id) != len(idTime)+5 || id[len(idTime)] != '-' {
		return false
	}
	_, err := hex.DecodeString(id[len(idTime)+1:])
	return err == nil
}

// Meta says which tool call made a change.
type Meta struct {
	Tool    string `json:"tool"`
	CallID  string `json:"call_id,omitempty"`
	Session string `json:"session,omitempty"`
	// RevertOf lists the ids of the entries this one reverts.
	RevertOf []string `json:"revert_of,omitempty"`
}

// FileChange is one file's change as a tool call makes it.
type FileChange struct {
	Path                      string // absolute
	Before, After             []byte
	BeforeExists, AfterExists bool
	Where                     string // WhereEditor or WhereDisk
}

// Where a change went.
const (
	WhereEditor = "editor"
	WhereDisk   = "disk"
)

// Entry is one journaled tool call.
type Entry struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	Meta
	Files   []FileRecord `json:"files"`
	Summary string       `json:"summary"` // e.g. "edit a.go (+2 -1)"
}

// FileRecord is one file of an Entry.
type FileRecord struct {
	Path  string `json:"path"`
	Where string `json:"where"`
	// Before and After are blob ids; "" means the file did not exist.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Added and Removed count lines (0 for binary files).
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// pendingFile is what pending/<id>.json holds, and entries/<id>.json once
// Commit has renamed it there.
type pendingFile struct {
	Entry Entry    `json:"entry"`
	Added []string `json:"added,omitempty"` // blobs this entry stored first
	PID   int      `json:"pid"`
}

// Pending is an entry whose change is being committed. Exactly one of
// Commit and Abort must follow; a Pending is used by one goroutine.
type Pending struct {
	j     *Journal
	entry Entry
	added []string
	size  int64 // bytes this entry added to the folder
	done  bool
}

// Begin stores the contents of files and a pending entry for them. The
// caller then commits the files and calls Commit, or Abort when the commit
// failed, so that a change that is not journaled did not happen and a failed
// change leaves no entry. Files whose content and existence did not change
// are left out; Begin with no change left fails.
func (j *Journal) Begin(m Meta, files []FileChange) (*Pending, error) {
	type prepared struct {
		rec           FileRecord
		before, after *blobData
	}
	var ps []prepared
	for _, fc := range files {
		if !filepath.IsAbs(fc.Path) {
			return nil, fmt.Errorf("journal change: path %q is not absolute", fc.Path)
		}
		if fc.BeforeExists == fc.AfterExists && (!fc.BeforeExists || string(fc.Before) == string(fc.After)) {
			continue
		}
		p := prepared{rec: FileRecord{Path: filepath.Clean(fc.Path), Where: fc.Where}}
		if p.rec.Where == "" {
			p.rec.Where = WhereDisk
		}
		if fc.BeforeExists {
			p.before = j.newBlob(fc.Before)
			p.rec.Before = p.before.id
		}
		if fc.AfterExists {
			p.after = j.newBlob(fc.After)
			p.rec.After = p.after.id
		}
		_, p.rec.Added, p.rec.Removed = fileDiff(p.rec.Path, p.rec.Path, fc.Before, fc.After, fc.BeforeExists, fc.AfterExists)
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil, errors.New("journal change: no file changed")
	}
	pd := &Pending{j: j}
	err := j.locked(func(st *lockState) error {
		id, t := j.nextID(st)
		e := Entry{ID: id, Time: t, Meta: m}
		for _, p := range ps {
			for _, b := range []*blobData{p.before, p.after} {
				if b == nil {
					continue
				}
				n, added, err := j.putBlob(b)
				if err != nil {
					return err
				}
				if added && !slices.Contains(pd.added, b.id) {
					pd.added = append(pd.added, b.id)
					pd.size += n
				}
			}
			e.Files = append(e.Files, p.rec)
		}
		e.Summary = j.summary(e)
		pd.entry = e
		raw, err := json.Marshal(pendingFile{Entry: e, Added: pd.added, PID: os.Getpid()})
		if err != nil {
			return err
		}
		if err := j.writeFile(filepath.Join(j.dir, pendingDir, id+".json"), raw); err != nil {
			return errors.Join(err, j.removeBlobs(pd.added, id))
		}
		pd.size += int64(len(raw))
		if st.Bytes >= 0 {
			st.Bytes += pd.size
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal change: %w", err)
	}
	return pd, nil
}

// Entry returns the entry as it will be published.
func (p *Pending) Entry() Entry { return p.entry }

// Commit publishes the entry, then enforces the journal's size bound (the
// entry just published is never dropped).
func (p *Pending) Commit() (Entry, error) {
	if p.done {
		return Entry{}, errors.New("journal commit: already committed or aborted")
	}
	p.done = true
	j := p.j
	err := j.locked(func(st *lockState) error {
		id := p.entry.ID
		if err := os.Rename(filepath.Join(j.dir, pendingDir, id+".json"), filepath.Join(j.dir, entriesDir, id+".json")); err != nil {
			return err
		}
		if j.o.Sync {
			if err := syncDir(filepath.Join(j.dir, entriesDir)); err != nil {
				return err
			}
		}
		if st.Bytes < 0 || st.Bytes > j.o.MaxBytes {
			if err := j.trim(st, id); err != nil {
				j.log.Warn("change journal: size bound not enforced", "err", err)
			}
		}
		return nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("journal commit %s: %w", p.entry.ID, err)
	}
	return p.entry, nil
}

// Abort removes the pending entry and the blobs only it stored. It is a
// no-op after Commit or Abort.
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	j := p.j
	err := j.locked(func(st *lockState) error {
		err := os.Remove(filepath.Join(j.dir, pendingDir, p.entry.ID+".json"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if st.Bytes >= 0 {
			st.Bytes = max(0, st.Bytes-p.size)
		}
		return j.removeBlobs(p.added, p.entry.ID)
	})
	if err != nil {
		j.log.Warn("change journal: abort left files behind", "id", p.entry.ID, "err", err)
	}
}

// writeFile writes data to name through a temporary file in the same
// folder and a rename, so that readers see all of it or nothing.
func (j *Journal) writeFile(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && j.o.Sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// List returns the entries newer than since (an id, or any prefix of one
// such as "20261202T00"; "" for all), newest first, at most limit of them
// (limit <= 0: all), and how many entries the size bound has dropped so far.
func (j *Journal) List(since string, limit int) (entries []Entry, dropped int, err error) {
	err = j.locked(func(st *lockState) error {
		dropped = st.Dropped
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list changes: %w", err)
	}
	ids, err := listIDs(filepath.Join(j.dir, entriesDir))
	if err != nil {
		return nil, 0, fmt.Errorf("list changes: %w", err)
	}
	for i := len(ids) - 1; i >= 0 && ids[i] > since; i-- {
		if limit > 0 && len(entries) >= limit {
			break
		}
		e, err := j.readEntry(entriesDir, ids[i])
		if errors.Is(err, fs.ErrNotExist) {
			continue // dropped meanwhile
		}
		if err != nil {
			j.log.Warn("change journal: entry skipped", "id", ids[i], "err", err)
			continue
		}
		entries = append(entries, e)
	}
	return entries, dropped, nil
}

// listIDs returns the ids of the entries in dir, oldest first.
func listIDs(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, de := range des {
		if id, ok := strings.CutSuffix(de.Name(), ".json"); ok && validID(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Get returns the committed entry id.
func (j *Journal) Get(id string) (Entry, error) {
	if !validID(id) {
		return Entry{}, fmt.Errorf("change %q: %w", id, ErrNotFound)
	}
	e, err := j.readEntry(entriesDir, id)
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{}, fmt.Errorf("change %s: %w", id, ErrNotFound)
	}
	return e, err
}

func (j *Journal) readEntry(sub, id string) (Entry, error) {
	raw, err := os.ReadFile(filepath.Join(j.dir, sub, id+".json"))
	if err != nil {
		return Entry{}, err
	}
	var pf pendingFile
	err = json.Unmarshal(raw, &pf)
	e := pf.Entry
	if err != nil || e.ID != id {
		return Entry{}, fmt.Errorf("change %s: %w", id, ErrDamaged)
	}
	return e, nil
}

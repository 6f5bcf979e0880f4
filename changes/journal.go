package changes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/internal/filelock"
)

// Defaults of Options.
const (
	DefaultMaxBytes     = 200 << 20
	DefaultMaxFileBytes = 8 << 20
	DefaultPendingAge   = time.Hour
)

// lockWait bounds the wait for the journal's lock: appends hold it for
// milliseconds, and a process that took it and keeps it (a task can open
// the lock file) must not stall every later change.
const lockWait = 30 * time.Second

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
// every append to the folder's log happens under an exclusive lock on
// dir/lock, ids are unique and ordered by time across processes, and every
// read first reads what other processes appended since.
type Journal struct {
	dir string
	o   Options
	log *slog.Logger

	// mu serialises this Journal's holders of the file lock (a flock is
	// held per open file, not per goroutine) and guards the open log and
	// what was read of it.
	mu    sync.Mutex
	lockf *os.File
	logf  *os.File // the log, opened O_APPEND; replaced when a compaction renamed a new log over it
	view  *logView
	// indexSize is the size of the snapshot indexes when last counted,
	// at indexCounted.
	indexSize    int64
	indexCounted time.Time

	indexMu sync.Mutex
	indexes map[string]*cachedIndex // by index file name
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
	for _, sub := range []string{"", blobsDir, indexDir} {
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
		j.Close()
		return nil, err
	}
	return j, nil
}

// Close releases the journal's lock file and log. Pending entries stay
// pending.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.lockf.Close()
	if j.logf != nil {
		err = errors.Join(err, j.logf.Close())
		j.logf, j.view = nil, nil
	}
	return err
}

// Folder names inside the journal's dir.
const (
	blobsDir = "blobs"
	indexDir = "index"
)

// locked runs fn holding the journal's lock, with the view of the log caught
// up, so that what fn appends lands after everything every process wrote.
func (j *Journal) locked(fn func() error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := filelock.LockWithin(context.Background(), j.lockf, lockWait); err != nil {
		return fmt.Errorf("lock change journal: %w", err)
	}
	defer filelock.Unlock(j.lockf)
	if err := j.catchUp(true); err != nil {
		return err
	}
	return fn()
}

// read runs fn on the view of the log, caught up with what every process
// appended (without the file lock: a record being written is read next
// time).
func (j *Journal) read(fn func(v *logView) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.catchUp(false); err != nil {
		return err
	}
	return fn(j.view)
}

const idTime = "20060102T150405.000000Z"

// nextID returns an id later than every id given out before: the time in
// microseconds (one more than the last id's when the clock has not moved on)
// and four random hex digits.
// Called with the file lock held; the id counts as given out once its
// entry's record is in the log.
func (j *Journal) nextID() (string, time.Time) {
	now := j.o.Now().UTC().Truncate(time.Microsecond)
	if last, ok := idTimeOf(j.view.last); ok && !now.After(last) {
		now = last.Add(time.Microsecond)
	}
	var r [2]byte
	rand.Read(r[:])
	return now.Format(idTime) + "-" + hex.EncodeToString(r[:]), now
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
	// Command is the command line of a shell task's entry.
	Command string `json:"command,omitempty"`
	// Agent names, for a person, the agent program that made a change
	// through a client's file service (the ACP proxy), e.g. "Gemini CLI".
	Agent string `json:"agent,omitempty"`
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

// pendingFile is the payload of an entry's record in the log.
type pendingFile struct {
	Entry Entry    `json:"entry"`
	Added []string `json:"added,omitempty"` // blobs this entry stored first
	PID   int      `json:"pid"`
	// Start tells PID's process from a later one with the same id (its
	// start time where the system gives one; 0 otherwise).
	Start uint64 `json:"start,omitempty"`
}

// Pending is an entry whose change is being committed. Exactly one of
// Commit and Abort must follow; a Pending is used by one goroutine.
type Pending struct {
	j     *Journal
	entry Entry
	done  bool
}

// Begin stores the contents of files and a pending entry for them. The
// caller then commits the files and calls Commit, or Abort when the commit
// failed, so that a change that is not journaled did not happen and a failed
// change leaves no entry. Files whose content and existence did not change
// are left out; Begin with no change left fails.
func (j *Journal) Begin(m Meta, files []FileChange) (*Pending, error) {
	var recs []FileRecord
	var blobs []*blobData
	for _, fc := range files {
		if !filepath.IsAbs(fc.Path) {
			return nil, fmt.Errorf("journal change: path %q is not absolute", fc.Path)
		}
		if fc.BeforeExists == fc.AfterExists && (!fc.BeforeExists || string(fc.Before) == string(fc.After)) {
			continue
		}
		rec := FileRecord{Path: filepath.Clean(fc.Path), Where: fc.Where}
		if rec.Where == "" {
			rec.Where = WhereDisk
		}
		var before *blobData
		if fc.BeforeExists {
			before = j.newBlob(fc.Before)
			rec.Before = before.id
			blobs = append(blobs, before)
		}
		if fc.AfterExists {
			b := j.newBlob(fc.After)
			b.against = before
			rec.After = b.id
			blobs = append(blobs, b)
		}
		rec.Added, rec.Removed = lineCounts(fc.Before, fc.After)
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil, errors.New("journal change: no file changed")
	}
	j.packBlobs(blobs)
	pd := &Pending{j: j}
	err := j.locked(func() error {
		id, t := j.nextID()
		e := Entry{ID: id, Time: t, Meta: m, Files: recs}
		e.Summary = j.summary(e)
		buf, added, err := j.blobRecords(nil, blobs)
		if err != nil {
			return err
		}
		pf := pendingFile{Entry: e, Added: added, PID: os.Getpid(), Start: selfStart}
		raw, err := json.Marshal(pf)
		if err != nil {
			return err
		}
		pf.Entry.Files = slices.Clone(recs) // the caller's Pending keeps e
		if err := j.appendLog(appendFrame(buf, recBegin, raw), &pf); err != nil {
			return errors.Join(err, j.removeLarge(added))
		}
		pd.entry = e
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal change: %w", err)
	}
	return pd, nil
}

// packBlobs compresses, before the lock is taken, the blobs of bs the
// journal does not have: an edit's after as a delta of its before when they
// share most of their bytes, else whole.
func (j *Journal) packBlobs(bs []*blobData) {
	j.mu.Lock()
	known := map[string]int{} // depth of the blobs the journal has
	for _, b := range bs {
		if _, ok := j.storedSize(b.id); ok {
			known[b.id] = j.view.blobs[b.id].depth
		}
	}
	j.mu.Unlock()
	for _, b := range bs {
		if _, ok := known[b.id]; ok {
			continue
		}
		if b.against != nil {
			b.packAgainst(b.against, known[b.against.id])
			continue
		}
		b.pack()
	}
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
	id := p.entry.ID
	err := j.locked(func() error {
		e := j.view.entries[id]
		switch {
		case e == nil || e.state == stateAborted:
			return errors.New("a later Open took its process for dead and removed it")
		case e.state == stateCommitted:
			return nil // published by a later Open meanwhile
		}
		if err := j.appendLog(appendFrame(nil, recCommit, []byte(id)), nil); err != nil {
			return err
		}
		j.maintain(id)
		return nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("journal commit %s: %w", id, err)
	}
	return p.entry, nil
}

// Abort removes the pending entry and the blobs only it stored (their
// records are dropped by the next compaction of the log). It is a no-op
// after Commit or Abort.
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	j := p.j
	err := j.locked(func() error {
		e := j.view.entries[p.entry.ID]
		if e == nil || e.state != statePending {
			return nil
		}
		if err := j.appendLog(appendFrame(nil, recAbort, []byte(p.entry.ID)), nil); err != nil {
			return err
		}
		err := j.removeLarge(e.pf.Added)
		j.maintain("")
		return err
	})
	if err != nil {
		j.log.Warn("change journal: abort left records behind", "id", p.entry.ID, "err", err)
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
	err = j.read(func(v *logView) error {
		dropped = v.dropped
		for i := len(v.ids) - 1; i >= 0 && v.ids[i] > since; i-- {
			if limit > 0 && len(entries) >= limit {
				break
			}
			if e := v.entries[v.ids[i]]; e.state == stateCommitted {
				entries = append(entries, e.entry())
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list changes: %w", err)
	}
	return entries, dropped, nil
}

// RevertedBy maps the id of every entry that a later committed entry
// reverts to the newest such entry's id.
func (j *Journal) RevertedBy() (map[string]string, error) {
	by := map[string]string{}
	err := j.read(func(v *logView) error {
		for _, id := range v.ids {
			r := v.entries[id]
			if r.state != stateCommitted {
				continue
			}
			for _, of := range r.entry().RevertOf {
				by[of] = id // ids ascend: the newest wins
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list reverts: %w", err)
	}
	return by, nil
}

// Get returns the committed entry id.
func (j *Journal) Get(id string) (Entry, error) {
	var e Entry
	err := j.read(func(v *logView) error {
		r := v.entries[id]
		if r == nil || r.state != stateCommitted {
			return fmt.Errorf("change %q: %w", id, ErrNotFound)
		}
		e = r.entry()
		return nil
	})
	return e, err
}

// entry returns a copy of the entry that the caller may modify.
func (r *entryRec) entry() Entry {
	e := r.pf.Entry
	e.Files = slices.Clone(e.Files)
	e.RevertOf = slices.Clone(e.RevertOf)
	return e
}

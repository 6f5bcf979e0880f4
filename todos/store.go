package todos

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/atomicfile"
	"github.com/whale-ls/whale-ls/internal/filelock"
	"github.com/whale-ls/whale-ls/workspace"
)

// Todo priorities.
const (
	PriorityHigh   = "high"
	PriorityMedium = "medium"
	PriorityLow    = "low"
)

// Item is one todo, as stored.
type Item struct {
	ID       int       `json:"id"`
	Content  string    `json:"content"`
	Status   string    `json:"status"`
	Priority string    `json:"priority"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// List is a workspace's todos, as todos.json holds them.
type List struct {
	Version int    `json:"version"`
	NextID  int    `json:"nextId"`
	Items   []Item `json:"items"`
}

// Store reads and writes a workspace's todos.json under the user's state
// folder, so the list outlives the session. Every operation re-reads the
// file under an exclusive lock (another whale-ls of the same workspace may
// have changed it), and every change is written to a temp file, synced and
// renamed over the old one.
type Store struct {
	roots []string // the workspace roots' real paths
	log   *slog.Logger

	mu sync.Mutex // serialises operations of this process; flock the others
}

// NewStore returns the store of the workspace whose roots have these real
// paths; with no roots every operation fails with "no workspace folder".
// log may be nil.
func NewStore(roots []string, log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{roots: append([]string(nil), roots...), log: log}
}

// dir returns the workspace's state folder, created 0700.
func (s *Store) dir() (string, error) {
	dir, err := workspace.StateDir(s.roots)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the todo folder: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("protect the todo folder: %w", err)
	}
	return dir, nil
}

// Update runs fn on the current list under the locks and writes the list
// back when fn reports a change. warning is set when a corrupted file was
// moved aside (it is never overwritten).
func (s *Store) Update(fn func(l *List) (changed bool, err error)) (l List, warning string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir, err := s.dir()
	if err != nil {
		return l, "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "todos.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return l, "", fmt.Errorf("open the todo lock: %w", err)
	}
	defer lock.Close()
	if err := filelock.LockWithin(context.Background(), lock, 30*time.Second); err != nil {
		return l, "", fmt.Errorf("lock the todo list: %w", err)
	}
	defer filelock.Unlock(lock)

	path := filepath.Join(dir, "todos.json")
	l, warning, err = s.load(path)
	if err != nil {
		return l, warning, err
	}
	changed, err := fn(&l)
	if err != nil || !changed {
		return l, warning, err
	}
	return l, warning, writeList(path, l)
}

// load reads the list; a missing file is an empty list, a corrupted one is
// renamed aside (never overwritten) and reported in warning.
func (s *Store) load(path string) (List, string, error) {
	empty := List{Version: 1, NextID: 1}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, "", nil
	}
	if err != nil {
		return empty, "", fmt.Errorf("read the todo list: %w", err)
	}
	var f List
	perr := json.Unmarshal(b, &f)
	if perr == nil {
		perr = f.check()
	}
	if perr == nil {
		if f.NextID < 1 {
			f.NextID = 1
		}
		for _, it := range f.Items {
			f.NextID = max(f.NextID, it.ID+1)
		}
		return f, "", nil
	}
	aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
	if err := os.Rename(path, aside); err != nil {
		return empty, "", fmt.Errorf("the todo list %s is corrupted (%v) and could not be moved aside (%w); fix or remove the file by hand", path, perr, err)
	}
	s.log.Warn("corrupted todo list moved aside", "file", path, "moved_to", aside, "err", perr)
	return empty, fmt.Sprintf("Warning: the saved todo list was unreadable (%v); it was moved to %s and a new list was started.", perr, aside), nil
}

// check rejects lists a newer or broken writer left behind.
func (f List) check() error {
	if f.Version != 1 {
		return fmt.Errorf("unknown version %d", f.Version)
	}
	seen := map[int]bool{}
	for _, it := range f.Items {
		if it.ID < 1 || seen[it.ID] {
			return fmt.Errorf("bad or repeated id %d", it.ID)
		}
		seen[it.ID] = true
	}
	return nil
}

// writeList writes the list atomically (atomicfile), 0600.
func writeList(path string, f List) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the todo list: %w", err)
	}
	return nil
}

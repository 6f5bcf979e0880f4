// Package filelock takes exclusive advisory locks on files, so that every
// whale process on the machine — the language server, `whale-ls mcp`,
// `whale-ls call` — serializes on the same file: flock(2) on Unix,
// LockFileEx on Windows. Locks are per open file, not per process: two
// opens of one file in one process exclude each other too.
//
// A wait polls without blocking, so that its context can end it. Where the
// system has neither call (Plan 9, WebAssembly) Lock takes no lock and
// says so in Supported.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Supported reports whether this system has cross-process file locks.
const Supported = supported

// Open opens the lock file at path, creating it with mode 0600 and never
// through a symlink where the system can tell, and locks it; Close
// releases both.
func Open(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|openFlags, 0o600)
	if err != nil {
		return nil, err
	}
	if err := Lock(ctx, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Lock takes an exclusive lock on f, waiting while another holder has it
// until ctx ends (then it returns ctx's error).
func Lock(ctx context.Context, f *os.File) error {
	for delay := 100 * time.Microsecond; ; delay = min(2*delay, 8*time.Millisecond) {
		busy, err := tryLock(f)
		if err != nil {
			return &os.PathError{Op: "lock", Path: f.Name(), Err: err}
		}
		if !busy {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// HeldError says that a lock stayed held by others for as long as a
// caller would wait, and by which processes where the system tells.
type HeldError struct {
	Path   string
	Waited time.Duration
	// Holders are the processes holding the lock ("pid 1234 (flock)"),
	// when the system lists them; empty otherwise.
	Holders []string
}

func (e *HeldError) Error() string {
	who := "another process"
	if len(e.Holders) > 0 {
		who = strings.Join(e.Holders, ", ")
	}
	return fmt.Sprintf("%s is locked by %s, still after %v", e.Path, who, e.Waited.Round(time.Second))
}

// LockWithin is Lock with a bound: when others still hold the lock after d,
// it returns a *HeldError naming them where the system tells (a task that
// took whale's lock must not stall whale for ever).
func LockWithin(ctx context.Context, f *os.File, d time.Duration) error {
	bounded, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := Lock(bounded, f)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return &HeldError{Path: f.Name(), Waited: d, Holders: holders(f)}
	}
	return err
}

// OpenWithin is Open with LockWithin's bound.
func OpenWithin(ctx context.Context, path string, d time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|openFlags, 0o600)
	if err != nil {
		return nil, err
	}
	if err := LockWithin(ctx, f, d); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Unlock releases the lock Lock took on f; f stays open.
func Unlock(f *os.File) error { return unlock(f) }

// Close releases f's lock and closes it.
func Close(f *os.File) error {
	unlock(f)
	return f.Close()
}

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
	"os"
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

// Unlock releases the lock Lock took on f; f stays open.
func Unlock(f *os.File) error { return unlock(f) }

// Close releases f's lock and closes it.
func Close(f *os.File) error {
	unlock(f)
	return f.Close()
}

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

const supported = true

// openFlags is 0: Windows has no O_NOFOLLOW (and opens without
// inheritance by default).
const openFlags = 0

// tryLock locks the file's first byte, as the other whale processes do.
func tryLock(f *os.File) (busy bool, err error) {
	ol := new(windows.Overlapped)
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}

package atomicfile

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errorSharingViolation is ERROR_SHARING_VIOLATION: another process has the
// file open without sharing it.
const errorSharingViolation syscall.Errno = 32

// renameWait bounds how long rename retries a replacement that another
// process's open handle refuses.
const renameWait = 2 * time.Second

// rename renames from to to in root. Windows refuses to replace a file
// that another process has open without FILE_SHARE_DELETE — as Go's own
// os.Open opens files, so any reader of the target, inside or outside
// whale — with "Access is denied" or a sharing violation; such a reader
// is done within moments, so the rename is retried for up to renameWait
// before the error is returned.
func rename(root *os.Root, from, to string) error {
	delay := time.Millisecond
	for deadline := time.Now().Add(renameWait); ; delay = min(2*delay, 100*time.Millisecond) {
		err := root.Rename(from, to)
		if err == nil || !(errors.Is(err, syscall.ERROR_ACCESS_DENIED) || errors.Is(err, errorSharingViolation)) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

package todos

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockTodos takes the cross-process lock of the todo list (LockFileEx on
// its first byte).
func lockTodos(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

func unlockTodos(f *os.File) {
	ol := new(windows.Overlapped)
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}

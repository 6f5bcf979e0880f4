//go:build unix

package todos

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockTodos takes the cross-process lock of the todo list (flock).
func lockTodos(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }

func unlockTodos(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }

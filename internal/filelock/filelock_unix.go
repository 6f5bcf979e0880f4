//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const supported = true

const openFlags = syscall.O_NOFOLLOW | syscall.O_CLOEXEC

func tryLock(f *os.File) (busy bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) || errors.Is(err, unix.EINTR) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }

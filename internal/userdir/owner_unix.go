//go:build unix

package userdir

import (
	"errors"
	"os"
	"syscall"
)

// fileOwner returns the uid that owns a file; ok is false when unknown.
func fileOwner(fi os.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// noFollow is the open flag that refuses a symlink as the last element.
const noFollow = syscall.O_NOFOLLOW | syscall.O_CLOEXEC

// isSymlinkErr reports whether an open with noFollow failed on a symlink.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

//go:build unix

package changes

import (
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for other holders.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// statID returns what identifies a file's content version beyond size and
// mtime: its inode and its change time.
func statID(fi fs.FileInfo) (ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Ino), statCtime(st)
}

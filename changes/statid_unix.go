//go:build unix

package changes

import (
	"io/fs"
	"syscall"
)

// statID returns what identifies a file's content version beyond size and
// mtime: its inode and its change time.
func statID(fi fs.FileInfo) (ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Ino), statCtime(st)
}

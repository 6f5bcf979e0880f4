//go:build unix

package execboundary

import (
	"os"
	"syscall"
)

// statIdentity returns the device, inode and status-change time (ns) of a
// file; ok is false when the system does not report them.
func statIdentity(fi os.FileInfo) (dev, ino uint64, changeNs int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), statChangeNs(st), true
}

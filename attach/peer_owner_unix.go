//go:build unix

package attach

import (
	"os"
	"syscall"
)

// ownerUID returns the uid owning a file; ok is false when unknown.
func ownerUID(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

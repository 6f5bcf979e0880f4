//go:build unix && !linux

package changes

import (
	"errors"
	"syscall"
)

// processStart is unknown here: a pid reused by a later process is taken
// for the one that began the entry (it is then settled after PendingAge).
func processStart(int) (uint64, bool) { return 0, false }

func processGone(pid int, _ uint64) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

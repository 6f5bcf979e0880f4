//go:build unix

package acpfront

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has pid (a zombie still counts).
func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

//go:build unix && !linux && !darwin

package terminal

import (
	"os"
	"syscall"
)

// BecomeSubreaper is a no-op where the kernel has no child subreapers; a
// re-parented process of a task is then out of reach once its parent exits.
func BecomeSubreaper() error { return nil }

func setPlatformAttrs(attr *syscall.SysProcAttr, supervised bool) {}

type procInfo struct {
	pid, ppid, pgrp, session int
	state                    byte
}

// treeOf cannot list processes without /proc; only the process group is
// signalled there.
func treeOf(session int, leaderGone bool) []procInfo {
	if !leaderGone && syscall.Kill(-session, 0) == nil {
		return []procInfo{{pid: session, pgrp: session, session: session, state: 'S'}}
	}
	return nil
}

func signalTree(session int, leaderGone bool, sig syscall.Signal) int {
	if !leaderGone && syscall.Kill(-session, sig) == nil {
		return 1
	}
	return 0
}

// statusReports is false: the supervisor execs the shell (see Supervise).
const statusReports = false

// maxCommandBytes is 0: no per-argument limit is checked before the start;
// a command over the system's total limit fails to start (E2BIG).
func maxCommandBytes() int { return 0 }

func commandLine(pid int) string                         { return "" }
func allProcs() []procInfo                               { return nil }
func reapOrphans(sessions map[int]bool)                  {}
func inputWait(pids []int, targets ...string) inputState { return inputState{} }
func fileIdentity(f *os.File) string                     { return "" }

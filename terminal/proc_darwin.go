package terminal

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper is a no-op on macOS, which has no child subreapers: a
// process of a task whose parent exits is re-parented to launchd. It stays
// in reach while it is in the task's session (cancel and Close signal every
// member); one that also left the session is out of reach.
func BecomeSubreaper() error { return nil }

// setPlatformAttrs has nothing to set: macOS has no parent-death signal. A
// supervisor watches the server's exit itself (see Supervise); a shell
// without one survives a server killed without Close.
func setPlatformAttrs(attr *syscall.SysProcAttr, supervised bool) {}

// statusReports says that the supervisor reports the shell's exit on a pipe
// and stays while processes of the task live (see Supervise).
const statusReports = true

// maxCommandBytes is 0: macOS limits the total size of the arguments and
// environment (ARG_MAX), not one argument; a command over it fails to start
// (E2BIG).
func maxCommandBytes() int { return 0 }

// procInfo is what the package uses of a process.
type procInfo struct {
	pid, ppid, pgrp, session int
	state                    byte
}

// Process states of struct extern_proc (sys/proc.h).
const (
	darwinStateStopped = 4 // SSTOP
	darwinStateZombie  = 5 // SZOMB
)

// allProcs lists every process (sysctl kern.proc.all) with its session
// (getsid); a process that exits while the list is read is left out.
func allProcs() []procInfo {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]procInfo, 0, len(kps))
	for _, k := range kps {
		p := procInfo{pid: int(k.Proc.P_pid), ppid: int(k.Eproc.Ppid), pgrp: int(k.Eproc.Pgid), state: 'S'}
		switch k.Proc.P_stat {
		case darwinStateZombie:
			p.state = 'Z'
		case darwinStateStopped:
			p.state = 'T'
		}
		if p.pid <= 0 {
			continue
		}
		sid, err := unix.Getsid(p.pid)
		if err != nil && p.state != 'Z' {
			continue // gone
		}
		p.session = sid
		out = append(out, p)
	}
	return out
}

// treeOf returns the live (non-zombie) processes that belong to a task: the
// members of its session and every descendant of one by the parent links,
// even in a session of its own, as long as its parent lives (without a
// subreaper an orphan's parent becomes launchd). leaderGone says the task's
// first process (whose pid is the session id) has been reaped: a process
// that holds that pid now is a stranger, and the session is not the task's
// any more.
func treeOf(session int, leaderGone bool) []procInfo {
	procs := allProcs()
	in := map[int]bool{}
	for _, p := range procs {
		if leaderGone && p.pid == session {
			return nil
		}
		in[p.pid] = p.session == session
	}
	for grew := true; grew; {
		grew = false
		for _, p := range procs {
			if !in[p.pid] && p.ppid > 1 && in[p.ppid] {
				in[p.pid], grew = true, true
			}
		}
	}
	var out []procInfo
	for _, p := range procs {
		if in[p.pid] && p.state != 'Z' {
			out = append(out, p)
		}
	}
	return out
}

// signalTree sends sig to every process group of the task's tree and to
// each of its processes, and returns how many processes it found.
func signalTree(session int, leaderGone bool, sig syscall.Signal) int {
	tree := treeOf(session, leaderGone)
	if !leaderGone {
		_ = syscall.Kill(-session, sig)
	}
	for _, p := range tree {
		if p.pgrp > 1 && p.pgrp != session {
			_ = syscall.Kill(-p.pgrp, sig)
		}
		_ = syscall.Kill(p.pid, sig)
	}
	return len(tree)
}

// reapOrphans has nothing to reap: without a subreaper, a task's orphans
// are re-parented to launchd, never to the server.
func reapOrphans(sessions map[int]bool) {}

// commandLine is a process's argv joined with spaces (sysctl
// kern.procargs2, readable for the user's own processes), else its name in
// brackets, or "" when the process is gone.
func commandLine(pid int) string {
	if b, err := unix.SysctlRaw("kern.procargs2", pid); err == nil {
		if s := strings.Join(procArgs(b), " "); s != "" {
			return s
		}
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(k.Proc.P_pid) != pid {
		return ""
	}
	return "[" + unix.ByteSliceToString(k.Proc.P_comm[:]) + "]"
}

// procArgs decodes kern.procargs2: argc (a native int32), the executable's
// path, NUL padding, then argc NUL-terminated arguments (the environment
// follows).
func procArgs(b []byte) []string {
	if len(b) < 4 {
		return nil
	}
	argc := int(binary.NativeEndian.Uint32(b))
	rest := b[4:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return nil
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	var args []string
	for len(args) < argc && len(rest) > 0 {
		arg, after, _ := bytes.Cut(rest, []byte{0})
		args = append(args, string(arg))
		rest = after
	}
	return args
}

// inputWait cannot see what a process is blocked in on macOS (there is no
// /proc/PID/syscall); checked stays false and prompt detection uses the
// terminal's modes and the text.
func inputWait(pids []int, targets ...string) inputState { return inputState{} }

// fileIdentity is "" on macOS: inputWait does not compare open files.
func fileIdentity(f *os.File) string { return "" }

//go:build linux

package terminal

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes the calling process a child subreaper
// (PR_SET_CHILD_SUBREAPER): processes of a task whose parent exits are
// re-parented to this process instead of init, so they stay in reach of
// cancel and Close, and the Table reaps them when they exit. Call it once,
// early in the server's main. It affects the whole process.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// setPlatformAttrs asks the kernel to signal a task's first process when the
// thread that started it dies; tasks are started from a locked thread that
// lives as long as the process, so this fires when the server dies without
// Close. A shell gets SIGKILL; a supervisor gets SIGUSR2, on which it kills
// the whole tree. (The setting belongs to the thread that survives exec, so
// it must be made here rather than by the supervisor.)
func setPlatformAttrs(attr *syscall.SysProcAttr, supervised bool) {
	attr.Pdeathsig = syscall.SIGKILL
	if supervised {
		attr.Pdeathsig = syscall.SIGUSR2
	}
}

// statusReports says that the supervisor reports the shell's exit on a pipe
// and stays while processes it adopted live (see Supervise).
const statusReports = true

// maxCommandBytes is the longest command the kernel passes to the shell as
// its one `-c` argument: MAX_ARG_STRLEN, 32 pages including the final NUL.
func maxCommandBytes() int { return 32*os.Getpagesize() - 1 }

// commandLine is a process's argv joined with spaces (its name in brackets
// when the argv is empty), or "" when the process is gone.
func commandLine(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	if s := strings.TrimSpace(string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '}))); s != "" {
		return s
	}
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return "[" + strings.TrimSpace(string(comm)) + "]"
}

// procInfo is the part of /proc/PID/stat the package uses.
type procInfo struct {
	pid, ppid, pgrp, session int
	state                    byte
}

func readProcStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	// The command name is in parentheses and may contain anything; the
	// fields after the last ')' are fixed.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return procInfo{}, false
	}
	p := procInfo{pid: pid, state: f[0][0]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgrp, _ = strconv.Atoi(f[2])
	p.session, _ = strconv.Atoi(f[3])
	return p, true
}

// allProcs lists every process visible in /proc.
func allProcs() []procInfo {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]procInfo, 0, len(names))
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, ok := readProcStat(pid); ok {
			out = append(out, p)
		}
	}
	// A parent that exited while the list was read has re-parented its
	// children before it vanished: read their stat again, or the walk
	// from the task's first process would lose them.
	seen := make(map[int]bool, len(out))
	for _, p := range out {
		seen[p.pid] = true
	}
	for i, p := range out {
		if p.ppid > 1 && !seen[p.ppid] {
			if again, ok := readProcStat(p.pid); ok {
				out[i] = again
			}
		}
	}
	return out
}

// treeOf returns the live (non-zombie) processes that belong to a task: its
// session, plus every descendant of a session member even if it started a
// session of its own. leaderGone says the task's first process (whose pid is
// the session id) has been reaped: a process that now holds that pid is a
// stranger that reused it, and then the session is not the task's any more.
// (While any process of the old session lives, the kernel does not reuse its
// id.)
func treeOf(session int, leaderGone bool) []procInfo {
	procs := allProcs()
	in := map[int]bool{}
	for _, p := range procs {
		if leaderGone && p.pid == session {
			return nil
		}
		if p.session == session {
			in[p.pid] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, p := range procs {
			if !in[p.pid] && in[p.ppid] {
				in[p.pid] = true
				changed = true
			}
		}
	}
	var out []procInfo
	for _, p := range procs {
		if in[p.pid] && p.state != 'Z' && p.state != 'X' {
			out = append(out, p)
		}
	}
	return out
}

// signalTree sends sig to every process group of the task's tree and to each
// of its processes, and returns how many processes it found.
func signalTree(session int, leaderGone bool, sig syscall.Signal) int {
	tree := treeOf(session, leaderGone)
	groups := map[int]bool{}
	if !leaderGone {
		groups[session] = true
	}
	for _, p := range tree {
		groups[p.pgrp] = true
	}
	for g := range groups {
		if g > 1 {
			_ = syscall.Kill(-g, sig)
		}
	}
	for _, p := range tree {
		_ = syscall.Kill(p.pid, sig)
	}
	return len(tree)
}

// reapOrphans collects zombies that were re-parented to this process from a
// task session. Task leaders (pid == session) are left to their exec.Cmd.
func reapOrphans(sessions map[int]bool) {
	self := os.Getpid()
	for _, p := range allProcs() {
		if p.ppid == self && p.state == 'Z' && sessions[p.session] && p.pid != p.session {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// inputWait looks at what pids are asleep in: a read of one of targets (a
// /dev/pts path, /dev/tty, or "pipe:[inode]"), or a poll/select/epoll wait
// that may include the input. checked is false when /proc could not tell.
func inputWait(pids []int, targets ...string) (st inputState) {
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
		if err != nil {
			continue
		}
		st.checked = true
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		nr, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		switch {
		case readSyscalls[nr]:
			fd, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 32)
			if err != nil {
				continue
			}
			link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.FormatUint(fd, 10))
			if err != nil {
				continue
			}
			for _, t := range targets {
				if t != "" && link == t {
					st.reading = true
				}
			}
		case waitSyscalls[nr]:
			st.polling = true
		}
	}
	return st
}

var readSyscalls = map[int]bool{unix.SYS_READ: true, unix.SYS_READV: true, unix.SYS_PREAD64: true}

var waitSyscalls = map[int]bool{unix.SYS_PSELECT6: true, unix.SYS_PPOLL: true, unix.SYS_EPOLL_PWAIT: true}

// fileIdentity names an open file the way /proc/PID/fd links show it.
func fileIdentity(f *os.File) string {
	var st syscall.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return ""
	}
	_ = rc.Control(func(fd uintptr) { err = syscall.Fstat(int(fd), &st) })
	if err != nil {
		return ""
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
		return "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"
	}
	return ""
}

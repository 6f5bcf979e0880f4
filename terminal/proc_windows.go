package terminal

import (
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// BecomeSubreaper is a no-op on Windows: a task's tree is held by its Job
// object instead (see afterStart).
func BecomeSubreaper() error { return nil }

// statusReports is false: there is no supervisor on Windows.
const statusReports = false

// maxCommandBytes is the longest command line CreateProcess takes (32767
// UTF-16 units) less room for the shell's own arguments.
func maxCommandBytes() int { return 30000 }

var (
	sizeofExtendedLimit = unsafe.Sizeof(windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{})
	sizeofThreadEntry   = unsafe.Sizeof(windows.ThreadEntry32{})
)

// jobTable maps a task's first pid to its Job object and, for a PTY task,
// its pseudoconsole.
type jobTable struct {
	mu       sync.Mutex
	m        map[int]windows.Handle
	consoles map[int]*ptyConsole
}

var jobs = &jobTable{m: map[int]windows.Handle{}, consoles: map[int]*ptyConsole{}}

func (j *jobTable) setConsole(pid int, c *ptyConsole) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.consoles[pid] = c
}

func (j *jobTable) console(pid int) *ptyConsole {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.consoles[pid]
}

func (j *jobTable) add(pid int, h windows.Handle) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.m[pid] = h
}

func (j *jobTable) get(pid int) (windows.Handle, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	h, ok := j.m[pid]
	return h, ok
}

// close drops the job of a task whose tree is gone.
func (j *jobTable) close(pid int) {
	j.mu.Lock()
	h, ok := j.m[pid]
	delete(j.m, pid)
	delete(j.consoles, pid)
	j.mu.Unlock()
	if ok {
		_ = windows.CloseHandle(h)
	}
}

type procInfo struct {
	pid, ppid, pgrp, session int
	state                    byte
}

// jobPids lists the processes alive in a task's job.
func jobPids(job windows.Handle) []int {
	type list struct {
		assigned, listed uint32
		pids             [256]uintptr
	}
	var l list
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicProcessIdList, uintptr(unsafe.Pointer(&l)), uint32(unsafe.Sizeof(l)), nil); err != nil {
		return nil
	}
	out := make([]int, 0, l.listed)
	for i := uint32(0); i < l.listed && i < uint32(len(l.pids)); i++ {
		out = append(out, int(l.pids[i]))
	}
	return out
}

// treeOf lists the live processes of the task's job.
func treeOf(session int, leaderGone bool) []procInfo {
	job, ok := jobs.get(session)
	if !ok {
		return nil
	}
	var out []procInfo
	for _, pid := range jobPids(job) {
		out = append(out, procInfo{pid: pid, pgrp: session, session: session, state: 'S'})
	}
	if len(out) == 0 && leaderGone {
		jobs.close(session)
	}
	return out
}

// signalTree ends the task's job: Windows has no signals to send a process
// tree, so every signal but SIGINT terminates it (SIGINT types ctrl-c into
// a PTY task's console and sends CTRL_BREAK to a pipe task's group).
func signalTree(session int, leaderGone bool, sig syscall.Signal) int {
	job, ok := jobs.get(session)
	if !ok {
		return 0
	}
	n := len(jobPids(job))
	if n == 0 {
		return 0
	}
	if sig == syscall.SIGINT {
		if c := jobs.console(session); c != nil {
			c.interrupt()
			return n
		}
		interruptGroup(session)
		return n
	}
	_ = windows.TerminateJobObject(job, 1)
	return n
}

func commandLine(pid int) string                         { return "" }
func allProcs() []procInfo                               { return nil }
func reapOrphans(sessions map[int]bool)                  {}
func ttyModes(f *os.File) (echo, canonical, ok bool)     { return false, false, false }
func foregroundGroup(f *os.File) int                     { return 0 }
func inputWait(pids []int, targets ...string) inputState { return inputState{} }
func fileIdentity(f *os.File) string                     { return "" }

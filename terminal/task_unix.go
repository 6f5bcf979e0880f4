//go:build unix

package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// ptySupported: creack/pty opens PTYs on every Unix.
const ptySupported = true

// ptyUnsupportedNote is never shown on Unix.
const ptyUnsupportedNote = ""

// supervisorUseful: a task supervisor keeps the tree together on Unix.
const supervisorUseful = true

// childExitSignals wake the reaper to collect re-parented zombies.
var childExitSignals = []os.Signal{syscall.SIGCHLD}

// defaultShell is /bin/bash when it exists, else /bin/sh.
func defaultShell() string {
	if fi, err := os.Stat("/bin/bash"); err == nil && !fi.IsDir() {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// shellCommand runs command as `shell -c command`.
func shellCommand(shell, command string) *exec.Cmd { return exec.Command(shell, "-c", command) }

// newProcAttr gives the task its own session (and process group).
func newProcAttr(*syscall.SysProcAttr) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// setControllingTTY makes the PTY slave on fd 0 the session's terminal.
func setControllingTTY(attr *syscall.SysProcAttr) {
	attr.Setctty = true
	attr.Ctty = 0
}

// afterStart has nothing to do on Unix: the session already holds the tree.
func afterStart(*exec.Cmd) error { return nil }

// interruptGroup sends SIGINT to the task's process group (ctrl-c in pipe
// mode).
func interruptGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGINT) }

// pollable re-opens a PTY master in non-blocking mode so that reads and
// writes go through Go's poller: Close interrupts a blocked read and writes
// can have deadlines.
func pollable(m *os.File) (*os.File, error) {
	rc, err := m.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var derr error
	_ = rc.Control(func(fd uintptr) {
		nfd, derr = syscall.Dup(int(fd))
	})
	_ = m.Close()
	if derr != nil {
		return nil, fmt.Errorf("dup the pty master: %w", derr)
	}
	syscall.CloseOnExec(nfd)
	if err := syscall.SetNonblock(nfd, true); err != nil {
		_ = syscall.Close(nfd)
		return nil, fmt.Errorf("make the pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(nfd), "ptmx"), nil
}

// reportedStatus decodes the wait status the supervisor reported.
func reportedStatus(n int) (int, string) {
	ws := syscall.WaitStatus(n)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}

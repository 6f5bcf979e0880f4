package terminal

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Supervise is the body of a task supervisor on macOS, the Linux one (see
// supervise_linux.go) without what the kernel lacks here: no subreaper and
// no parent-death signal. The Table runs it in place of the shell when
// Options.Supervisor is set. args is optionally "--status-fd N", then "--",
// then the shell's argv; it returns the exit code for os.Exit, or kills
// itself with the signal that killed the shell.
//
// The supervisor is the task's session leader (the Table starts it with
// setsid) and starts the shell in that session. It ignores SIGINT, SIGTERM,
// SIGHUP and SIGQUIT (the Table signals every process of the tree itself).
// It learns of the server's death from kqueue (EVFILT_PROC, NOTE_EXIT on its
// parent) and, as a fallback, from a change of parent pid seen within a
// second; it then kills the task's tree as treeOf sees it — every member of
// its session, the process groups they are in, and their descendants whose
// parent still lives — and then itself.
//
// With --status-fd, the shell's exit is reported as soon as the shell is
// reaped: its wait status as a decimal number and a newline on fd N, which
// is then closed. The supervisor then gives up the task's terminal and
// pipes and stays while any other process of the tree lives, checking once
// a second, then exits with the shell's status. Without --status-fd it exits
// with the shell. A process that left the session and whose parent exited
// is re-parented to launchd: the supervisor neither waits for it nor kills
// it.
func Supervise(args []string) int {
	statusFD, argv, ok := supervisorArgs(args)
	if !ok {
		fmt.Fprintln(os.Stderr, "task supervisor: expected [--status-fd N] -- SHELL ARGS…")
		return 2
	}
	if statusFD >= 0 {
		syscall.CloseOnExec(statusFD)
	}
	parent := os.Getppid()
	serverGone := processExit(parent)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGCHLD)
	if os.Getppid() != parent {
		return 1 // the server died before the shell started
	}
	proc, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
		return 127
	}
	shell, self := proc.Pid, os.Getpid()
	var status syscall.WaitStatus
	shellDone := false
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-serverGone:
			killSupervisedTree(self)
		case <-tick.C:
			if os.Getppid() != parent {
				killSupervisedTree(self)
			}
		case <-sigs: // SIGCHLD; the others are ignored (see above)
		}
		if !shellDone && reapShell(shell, &status) {
			shellDone = true
			if statusFD < 0 {
				return exitLike(status)
			}
			leaveTask(statusFD, status)
		}
		if shellDone && len(treeOf(self, false)) <= 1 {
			return exitLike(status)
		}
	}
}

// supervisorArgs splits Supervise's arguments into the status fd (-1 when
// none) and the shell's argv.
func supervisorArgs(args []string) (statusFD int, argv []string, ok bool) {
	statusFD = -1
	for len(args) > 0 && args[0] != "--" {
		if args[0] == "--status-fd" && len(args) > 1 {
			if n, err := strconv.Atoi(args[1]); err == nil && n > 2 {
				statusFD = n
			}
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) < 2 {
		return -1, nil, false
	}
	return statusFD, args[1:], true
}

// processExit returns a channel that is closed when process pid exits
// (kqueue EVFILT_PROC with NOTE_EXIT), at once when it is already gone, and
// never when kqueue cannot watch it.
func processExit(pid int) <-chan struct{} {
	done := make(chan struct{})
	kq, err := unix.Kqueue()
	if err != nil {
		return done
	}
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		_ = unix.Close(kq)
		if err == unix.ESRCH {
			close(done)
		}
		return done
	}
	go func() {
		got := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, got, nil)
			if err == unix.EINTR {
				continue
			}
			if err == nil && n > 0 {
				close(done)
			}
			return
		}
	}()
	return done
}

// reapShell reaps the shell without blocking and reports whether it had
// exited, with its status. The shell is the supervisor's only child: orphans
// go to launchd.
func reapShell(shell int, status *syscall.WaitStatus) bool {
	for {
		pid, err := syscall.Wait4(shell, status, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		return err == nil && pid == shell
	}
}

// leaveTask reports the shell's exit on fd and lets go of the task's
// terminal and pipes, so that its output ends when the processes that
// outlived the shell close theirs.
func leaveTask(fd int, status syscall.WaitStatus) {
	_, _ = syscall.Write(fd, []byte(strconv.Itoa(int(status))+"\n"))
	_ = syscall.Close(fd)
	if null, err := syscall.Open(os.DevNull, syscall.O_RDWR, 0); err == nil {
		for fd := range 3 {
			_ = syscall.Dup2(null, fd)
		}
		if null > 2 {
			_ = syscall.Close(null)
		}
	}
}

// exitLike returns the shell's exit code, or kills the supervisor with the
// signal that killed the shell.
func exitLike(status syscall.WaitStatus) int {
	if status.Signaled() {
		signal.Reset(status.Signal())
		_ = syscall.Kill(os.Getpid(), status.Signal())
		time.Sleep(time.Second) // the signal ends the process
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}

// killSupervisedTree kills every other process of the supervisor's tree
// and the process groups they are in (SIGKILL, again until none is left, for
// at most about two hundred milliseconds), then its own group and itself.
// Its own group is signalled last: that signal ends the supervisor too.
func killSupervisedTree(self int) {
	for range 20 {
		others := 0
		for _, p := range treeOf(self, false) {
			if p.pid == self {
				continue
			}
			others++
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
			if p.pgrp != self && p.pgrp > 1 {
				_ = syscall.Kill(-p.pgrp, syscall.SIGKILL)
			}
		}
		if others == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(-self, syscall.SIGKILL)
	_ = syscall.Kill(self, syscall.SIGKILL)
}

//go:build linux

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

// Supervise is the body of a task supervisor: a small process that the
// Table runs in place of the shell when Options.Supervisor is set, so that a
// task's whole tree dies with the server even when the server is killed
// without a chance to clean up. args is everything after the supervisor's own
// arguments: optionally "--status-fd N", then "--", then the shell's argv. It
// returns the exit code for the caller to pass to os.Exit; when the shell died
// of a signal, Supervise kills itself with the same signal.
//
// The supervisor becomes the task's session leader and a child subreaper,
// asks for a parent-death signal, starts the shell in its own session and
// process group, reaps re-parented processes, and ignores SIGINT, SIGTERM,
// SIGHUP and SIGQUIT (the Table signals every process of the tree itself).
//
// With --status-fd, the shell's exit is reported as soon as the shell is
// reaped: its wait status as a decimal number and a newline on fd N, which
// is then closed. The supervisor then stays for as long as any process it
// adopted lives — a job left with `&`, a `nohup` or `setsid` daemon, the
// grandchild of a double fork: as a subreaper it is their parent once their
// own parent is gone, so it has a child exactly while some descendant lives.
// It first gives up the task's terminal and pipes (its own standard streams
// become /dev/null), so that the output ends when they close theirs. It
// does not hang up the terminal's foreground group when the shell exits (a
// `setsid` or `nohup` child the shell just forked would die of it before
// it got there); the terminal is hung up when the supervisor itself exits,
// with no process of the task left. When the last descendant is gone it
// exits with the shell's status. Without --status-fd it exits with the shell.
//
// Whenever the server dies (the parent-death signal SIGUSR2, or a change of
// parent pid seen within a second), the supervisor kills every descendant,
// found by walking the PPid links in /proc and by process group (setsid'ed
// processes are in other sessions and groups but remain descendants), and
// then itself.
func Supervise(args []string) int {
	statusFD := -1
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
		fmt.Fprintln(os.Stderr, "task supervisor: expected [--status-fd N] -- SHELL ARGS…")
		return 2
	}
	if statusFD >= 0 {
		syscall.CloseOnExec(statusFD)
	}
	argv := args[1:]
	parent := os.Getppid()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR2, syscall.SIGCHLD)
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGUSR2), 0, 0, 0)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	if os.Getppid() != parent {
		return 1 // the server died before the shell started
	}
	// Signal handlers do not survive exec: the shell starts with default
	// dispositions.
	proc, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
		return 127
	}
	shell := proc.Pid
	var status syscall.WaitStatus
	shellDone := false
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case sig := <-sigs:
			switch sig {
			case syscall.SIGUSR2:
				killTreeAndSelf()
			case syscall.SIGCHLD:
			default:
				// SIGINT, SIGTERM, SIGHUP, SIGQUIT: the Table signals the
				// whole tree, so the shell got it too; stay until it exits.
				continue
			}
		case <-tick.C:
			if os.Getppid() != parent {
				killTreeAndSelf()
			}
		}
		found, none := reapAll(shell, &status)
		if found {
			shellDone = true
			if statusFD < 0 {
				return exitLike(status)
			}
			leaveTask(statusFD, status)
		}
		if shellDone && none {
			return exitLike(status)
		}
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
			_ = syscall.Dup3(null, fd, 0)
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

// killTreeAndSelf ends every process of the supervisor's tree: descendants
// (they stay descendants, the supervisor being a subreaper) and members of
// its session, then the supervisor itself.
func killTreeAndSelf() {
	self := os.Getpid()
	for range 20 {
		tree := treeOf(self, false)
		others := 0
		for _, p := range tree {
			if p.pid != self {
				others++
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
				if p.pgrp != self && p.pgrp > 1 {
					_ = syscall.Kill(-p.pgrp, syscall.SIGKILL)
				}
			}
		}
		reapAll(0, nil)
		if others == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(-self, syscall.SIGKILL)
	_ = syscall.Kill(self, syscall.SIGKILL)
}

// reapAll reaps every exited child without blocking. found reports whether
// the shell was among them, with its status; none that no child is left.
func reapAll(shell int, status *syscall.WaitStatus) (found, none bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ECHILD {
			return found, true
		}
		if err != nil || pid <= 0 {
			return found, false
		}
		if pid == shell {
			found = true
			if status != nil {
				*status = ws
			}
		}
	}
}

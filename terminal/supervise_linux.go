//go:build linux

package terminal

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Supervise is the body of a task supervisor: a small process that the
// Table runs in place of the shell when Options.Supervisor is set, so that a
// task's whole tree dies with the server even when the server is killed
// without a chance to clean up. args is everything after the supervisor's own
// arguments: "--", then the shell's argv. It returns the exit code for the
// caller to pass to os.Exit; when the shell died of a signal, Supervise kills
// itself with the same signal so the Table sees it.
//
// The supervisor becomes the task's session leader and a child subreaper,
// asks for a parent-death signal, starts the shell in its own session and
// process group, passes signals to it (the Table signals the group anyway),
// reaps re-parented processes, and exits with the shell. When the server
// dies, it kills every process of the task's tree and exits.
func Supervise(args []string) int {
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "task supervisor: expected -- SHELL ARGS…")
		return 2
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
				// whole group, so the shell got it too; stay until it exits.
				continue
			}
		case <-tick.C:
			if os.Getppid() != parent {
				killTreeAndSelf()
			}
		}
		var status syscall.WaitStatus
		if reapAll(shell, &status) {
			if status.Signaled() {
				signal.Reset(status.Signal())
				_ = syscall.Kill(os.Getpid(), status.Signal())
				time.Sleep(time.Second) // the signal ends the process
				return 128 + int(status.Signal())
			}
			return status.ExitStatus()
		}
	}
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

// reapAll reaps every exited child without blocking and reports whether the
// shell was among them, with its status.
func reapAll(shell int, status *syscall.WaitStatus) bool {
	found := false
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return found
		}
		if pid == shell {
			found = true
			if status != nil {
				*status = ws
			}
		}
	}
}

//go:build unix

package acpfront

import (
	"os/exec"
	"syscall"
)

// setAgentAttrs gives the agent its own process group.
func setAgentAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// signalGroup sends SIGTERM (or SIGKILL) to the agent's process group and
// reports whether any process was there to receive it.
func signalGroup(cmd *exec.Cmd, kill bool) bool {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-cmd.Process.Pid, sig) == nil
}

// groupAlive reports whether a process of the agent's group still runs.
func groupAlive(cmd *exec.Cmd) bool {
	return syscall.Kill(-cmd.Process.Pid, 0) == nil
}

//go:build unix

package mcphost

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd as the leader of a process group of its own, so that
// whale can end it with every process it started (npx and the node it
// runs, say) and none of them gets the terminal's signals.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills what is left of the process group pid leads.
func killGroup(pid int) {
	if pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

package acpfront

import "os/exec"

// setAgentAttrs leaves the agent as it is: Windows has no process groups
// to signal.
func setAgentAttrs(*exec.Cmd) {}

// signalGroup kills the agent itself (kill or not: Windows has no SIGTERM).
func signalGroup(cmd *exec.Cmd, _ bool) bool { return cmd.Process.Kill() == nil }

// groupAlive is false: only the agent itself is tracked on Windows.
func groupAlive(*exec.Cmd) bool { return false }

package acpfront

import "syscall"

// setDeathSignal kills the agent when the proxy dies without stopping it.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

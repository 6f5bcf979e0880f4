package execboundary

import "os/exec"

// Check decides, as Start does, whether cmd may run, without starting it:
// for a task whose process someone else creates (a ConPTY task on Windows,
// which exec.Cmd cannot start). Mode off allows everything; otherwise every
// program the command line names is checked (see Start).
func (g *Gate) Check(cmd *exec.Cmd, task Task) error {
	if g.Mode() == ModeOff {
		return nil
	}
	return g.precheck(cmd, task, errUnsupported.Error())
}

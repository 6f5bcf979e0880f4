//go:build !linux

package execboundary

import (
	"fmt"
	"os/exec"
	"runtime"
)

var errUnsupported = fmt.Errorf("the exec gate needs Linux seccomp user notification, and this is %s", runtime.GOOS)

func probeGate([]string) error { return errUnsupported }

// Start starts cmd. The seccomp gate does not exist here, so in modes
// enforce and best-effort every program the command line names is checked
// before the start (see ParseCommandLine): a rule that says ask asks the
// user through the Approver, a denial refuses the command, and the task's
// output and results say what this check does not cover. Mode off starts
// cmd unchecked.
func (g *Gate) Start(cmd *exec.Cmd, task Task) (stop func(), err error) {
	if g.Mode() == ModeOff {
		return nil, cmd.Start()
	}
	if err := g.precheck(cmd, task, errUnsupported.Error()); err != nil {
		return nil, err
	}
	return nil, cmd.Start()
}

// RunHelper is the body of the exec-gate subcommand; it only works on Linux.
func RunHelper(args []string, confine Confiner) int {
	fmt.Println("whale-ls exec-gate:", errUnsupported)
	return 126
}

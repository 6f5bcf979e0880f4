//go:build !linux

package execboundary

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

var errUnsupported = fmt.Errorf("the exec gate needs Linux seccomp user notification, and this is %s", runtime.GOOS)

func probeGate([]string) error { return errUnsupported }

// Start starts cmd. The gate is not available on this system: mode enforce
// refuses, best-effort runs the command unchecked and says so, off runs it.
func (g *Gate) Start(cmd *exec.Cmd, task Task) (stop func(), err error) {
	switch g.Mode() {
	case ModeOff:
		return nil, cmd.Start()
	case ModeBestEffort:
		task.Note("whale: " + UncheckedHint(errUnsupported.Error()))
		notify(task, Event{Kind: "unchecked", Text: UncheckedHint(errUnsupported.Error())})
		return nil, cmd.Start()
	}
	return nil, errors.New(refusal(errUnsupported.Error()))
}

// RunHelper is the body of the exec-gate subcommand; it only works on Linux.
func RunHelper(args []string) int {
	fmt.Println("whale-ls exec-gate:", errUnsupported)
	return 126
}

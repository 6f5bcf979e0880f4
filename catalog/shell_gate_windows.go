package catalog

import (
	"os/exec"

	"github.com/whale-ls/whale-ls/terminal"
)

// Check lets a ConPTY task ask the gate before it starts its own process
// (terminal's consoleGate on Windows).
func (a gateAdapter) Check(cmd *exec.Cmd, t terminal.GateTask) error {
	return a.g.Check(cmd, &eventTask{GateTask: t, events: eventsFor(t)})
}

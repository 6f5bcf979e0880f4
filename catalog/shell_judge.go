package catalog

import (
	"strings"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// ShellJudgement is what whale can tell about a shell_run command before it
// runs, so that an editor asks the user once per command: ReadOnly is
// terminal.IsReadOnlyCommand, Boundary what the exec boundary will do with
// the programs the command line names (execboundary.Gate.Judge).
type ShellJudgement struct {
	ReadOnly bool
	Boundary execboundary.Outlook
}

// JudgeShellCommand judges command as shell_run would run it in cwd (a
// folder of the workspace; empty means its root). Without a gate the
// boundary is unchecked.
func JudgeShellCommand(ws *workspace.Set, gate *execboundary.Gate, command, cwd string) (ShellJudgement, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return ShellJudgement{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "command is empty; give the command line to judge")
	}
	dir, err := shellDir(ws, cwd)
	if err != nil {
		return ShellJudgement{}, err
	}
	j := ShellJudgement{ReadOnly: terminal.IsReadOnlyCommand(command), Boundary: execboundary.OutlookUnchecked}
	if gate != nil {
		j.Boundary = gate.Judge(command, dir)
	}
	return j, nil
}

package main

import (
	"fmt"
	"strings"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/sandbox"
)

// execGateCommand is the hidden subcommand the server runs in front of each
// shell task: it installs the exec filter and hands its listener over.
const execGateCommand = execboundary.HelperCommand

// execGate is the body of the exec-gate subcommand; it applies the sandbox
// too.
func execGate(args []string) int { return execboundary.RunHelper(args, sandbox.Apply) }

// gateStateLine is the line `whale-ls call` adds to a shell tool's text: the
// exec boundary's state in this run.
func gateStateLine(g *execboundary.Gate, tool string) string {
	if g == nil || (tool != "shell_run" && tool != "shell_wait") {
		return ""
	}
	return "[" + g.State().Text() + "]"
}

// sandboxSummary says, for `whale-ls settings`, what shell.sandbox
// workspace-write lets a task write on this machine (besides the workspace
// folders), and whether the sandbox works here.
func sandboxSummary() string {
	p, err := sandbox.Plan(sandbox.Options{Mode: string(sandbox.WorkspaceWrite), DryRun: true})
	if err != nil {
		return "shell.sandbox: " + err.Error()
	}
	var where []string
	for _, r := range p.Writable {
		where = append(where, fmt.Sprintf("  %s (%s)", r.Path, r.Why))
	}
	text := "With shell.sandbox workspace-write, shell tasks here may write in the workspace folders (.git included) and:\n" + strings.Join(where, "\n") +
		"\nplus shell.writableRoots; read-only keeps the temp folders and shell.writableRoots only."
	if err := sandbox.Check(p); err != nil {
		text += "\nThe sandbox cannot be applied on this machine: " + err.Error() + "."
	}
	return text
}

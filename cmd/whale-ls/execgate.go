package main

import (
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

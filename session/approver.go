package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// NewApprover adapts a Prompter to the exec boundary's Approver: an
// approval prompt in plain words — the command, why whale asks (the rule
// as words, never its globs), the program and the folder, no task ids —
// with the options allow_once, allow_session (that same command in that
// folder, for the rest of the session) and deny. A nil Prompter, or one
// that cannot show approvals, makes every "ask" a denial.
func NewApprover(p toolbridge.Prompter) execboundary.Approver { return promptApprover{p} }

type promptApprover struct{ p toolbridge.Prompter }

func (a promptApprover) Approve(ctx context.Context, ap execboundary.Approval) (execboundary.Answer, error) {
	if a.p == nil {
		return execboundary.DenyOnce, execboundary.ErrNoApprover
	}
	q := toolbridge.Prompt{
		Kind:    toolbridge.PromptApproval,
		Title:   approvalTitle(ap),
		Detail:  approvalDetail(ap),
		Options: []toolbridge.PromptOption{{ID: toolbridge.ApproveOnce, Label: "Allow once"}, {ID: toolbridge.ApproveSession, Label: "Allow this command for this session"}, {ID: toolbridge.ApproveDeny, Label: "Deny"}},
		Timeout: ap.Timeout,
	}
	ans, err := a.p.Prompt(ctx, q)
	switch {
	case errors.Is(err, toolbridge.ErrPromptTimeout) || errors.Is(err, context.DeadlineExceeded):
		return execboundary.DenyOnce, execboundary.ErrApprovalTimeout
	case errors.Is(err, toolbridge.ErrCannotPrompt) || errors.Is(err, toolbridge.ErrNoOneToAsk):
		return execboundary.DenyOnce, execboundary.ErrNoApprover
	case err != nil:
		return execboundary.DenyOnce, err
	case ans.Canceled:
		return execboundary.DenyOnce, nil
	}
	switch ans.OptionID {
	case toolbridge.ApproveOnce:
		return execboundary.AllowOnce, nil
	case toolbridge.ApproveSession:
		return execboundary.AllowSession, nil
	}
	return execboundary.DenyOnce, nil
}

// approvalTitle is the question: "Allow `rm -rf build`?".
func approvalTitle(ap execboundary.Approval) string {
	return "Allow " + shortCommand(ap.Argv, ap.Program) + "?"
}

// approvalDetail says why whale asks and what would run where.
func approvalDetail(ap execboundary.Approval) string {
	var b strings.Builder
	why := ap.Why
	if why == "" {
		why = ap.Rule
	}
	if why != "" {
		b.WriteString("whale asks because " + why + ".\n")
	}
	command := ap.Command
	if len(command) > 300 {
		command = command[:300] + "…"
	}
	fmt.Fprintf(&b, "Command: %s\nProgram: %s\nFolder: %s", command, ap.Program, ap.Cwd)
	if args := strings.Join(ap.Argv, " "); len(args) > 80 {
		if len(args) > 300 {
			args = args[:300] + "…"
		}
		b.WriteString("\nArguments: " + args)
	}
	b.WriteString("\n\"Allow this command for this session\" allows this same command in this folder again without asking; any other command is still asked about.")
	return b.String()
}

func shortCommand(argv []string, program string) string {
	s := program
	if len(argv) > 0 {
		s = strings.Join(argv, " ")
	}
	if len(s) > 80 {
		s = s[:79] + "…"
	}
	return "`" + s + "`"
}

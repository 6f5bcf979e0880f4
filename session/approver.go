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
// approval prompt with the command, program, arguments, folder and rule,
// and the options allow_once, allow_session and deny. A nil Prompter, or
// one that cannot show approvals, makes every "ask" a denial.
func NewApprover(p toolbridge.Prompter) execboundary.Approver { return promptApprover{p} }

type promptApprover struct{ p toolbridge.Prompter }

func (a promptApprover) Approve(ctx context.Context, ap execboundary.Approval) (execboundary.Answer, error) {
	if a.p == nil {
		return execboundary.DenyOnce, execboundary.ErrNoApprover
	}
	args := strings.Join(ap.Argv, " ")
	if len(args) > 300 {
		args = args[:300] + "…"
	}
	q := toolbridge.Prompt{
		Kind:  toolbridge.PromptApproval,
		Title: fmt.Sprintf("Allow task %s to run %s?", ap.TaskID, shortCommand(ap.Argv, ap.Program)),
		Detail: fmt.Sprintf("Command: %s\nProgram: %s\nArguments: %s\nFolder: %s\nRule: %s",
			ap.Command, ap.Program, args, ap.Cwd, ap.Rule),
		Options: []toolbridge.PromptOption{{ID: toolbridge.ApproveOnce, Label: "Allow once"}, {ID: toolbridge.ApproveSession, Label: "Allow for this session"}, {ID: toolbridge.ApproveDeny, Label: "Deny"}},
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

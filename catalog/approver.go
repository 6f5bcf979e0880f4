package catalog

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"weak"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// NewExecGate makes the exec boundary for d's shell tasks: approvals go
// through d.Prompter, decisions into the audit log under the state folder.
// The caller stores it in d.ExecGate before calling SetSettings.
func (d *Deps) NewExecGate() *execboundary.Gate {
	return execboundary.NewGate(execboundary.Options{
		Approver: NewApprover(d.Prompter),
		Audit:    execboundary.NewAuditLog(""),
		Log:      d.logger(),
	})
}

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

// shellGate returns the gate shell_run starts tasks with; nil without one.
func (d *Deps) shellGate() terminal.Gate {
	if d.ExecGate == nil {
		return nil
	}
	return gateAdapter{d.ExecGate}
}

// gateAdapter makes an execboundary.Gate a terminal.Gate, and keeps the
// gate's events per task for the task's results.
type gateAdapter struct{ g *execboundary.Gate }

func (a gateAdapter) Start(cmd *exec.Cmd, t terminal.GateTask) (func(), error) {
	et := &eventTask{GateTask: t}
	if task, ok := t.(*terminal.Task); ok {
		et.events = eventsFor(task)
	}
	return a.g.Start(cmd, et)
}

type eventTask struct {
	terminal.GateTask
	events *gateEvents
}

func (e *eventTask) ExecEvent(ev execboundary.Event) {
	if e.events != nil {
		e.events.add(ev)
	}
}

// gateEvents are the exec boundary's reports about one task.
type gateEvents struct {
	mu        sync.Mutex
	denied    []string
	killed    string
	unchecked string
}

func (g *gateEvents) add(ev execboundary.Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch ev.Kind {
	case "denied":
		if len(g.denied) < 20 {
			g.denied = append(g.denied, ev.Text)
		}
	case "killed":
		g.killed = ev.Text
	case "unchecked":
		g.unchecked = ev.Text
	}
}

// taskEvents maps live tasks to their events; entries go when the task is
// garbage.
var taskEvents sync.Map // weak.Pointer[terminal.Task] → *gateEvents

func eventsFor(task *terminal.Task) *gateEvents {
	key := weak.Make(task)
	ev, loaded := taskEvents.LoadOrStore(key, &gateEvents{})
	if !loaded {
		runtime.AddCleanup(task, func(k weak.Pointer[terminal.Task]) { taskEvents.Delete(k) }, key)
	}
	return ev.(*gateEvents)
}

// ReasonPolicyDenied is the diagnosis of a task whose exec the policy
// refused.
const ReasonPolicyDenied = "policy_denied"

// gateReport adds what the exec boundary did to a task's result: a denial
// becomes the diagnosis (the model must ask the user, not retry another
// way), a kill after a failed image check and a best-effort run without the
// gate are said in the head of every result.
func gateReport(task *terminal.Task, head string, diag terminal.Diagnosis) (string, terminal.Diagnosis) {
	v, ok := taskEvents.Load(weak.Make(task))
	if !ok {
		return head, diag
	}
	ev := v.(*gateEvents)
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var notes []string
	if ev.unchecked != "" {
		notes = append(notes, ev.unchecked)
	}
	if ev.killed != "" {
		notes = append(notes, ev.killed+". "+execboundary.DeniedHint)
	}
	if len(ev.denied) > 0 {
		diag = terminal.Diagnosis{Reason: ReasonPolicyDenied, Hint: execboundary.DeniedHint}
	}
	if len(notes) > 0 {
		if head != "" {
			notes = append(notes, head)
		}
		head = strings.Join(notes, "\n")
	}
	return head, diag
}

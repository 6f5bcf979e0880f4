package catalog

import (
	"os/exec"
	"strings"
	"sync"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/terminal"
)

// shellGate returns the gate shell_run starts tasks with; nil without one.
func shellGate(g *execboundary.Gate) terminal.Gate {
	if g == nil {
		return nil
	}
	return gateAdapter{g}
}

// gateAdapter makes an execboundary.Gate a terminal.Gate, and keeps the
// gate's events per task for the task's results.
type gateAdapter struct{ g *execboundary.Gate }

func (a gateAdapter) Start(cmd *exec.Cmd, t terminal.GateTask) (func(), error) {
	return a.g.Start(cmd, &eventTask{GateTask: t, events: eventsFor(t)})
}

type eventTask struct {
	terminal.GateTask
	events *gateEvents
}

func (e *eventTask) ExecEvent(ev execboundary.Event) { e.events.add(ev) }

// gateEvents are the exec boundary's reports about one task.
type gateEvents struct {
	mu        sync.Mutex
	denied    []string
	killed    string
	unchecked string
	// The sandbox: the policy the task runs under (nil: none), the note of
	// an unconfined run, and the policy's description until a result
	// showed it.
	policy     *sandbox.Policy
	unconfined string
	describe   string
}

func (g *gateEvents) add(ev execboundary.Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch ev.Kind {
	case execboundary.EventDenied:
		if len(g.denied) < 20 {
			g.denied = append(g.denied, ev.Text)
		}
	case execboundary.EventKilled:
		g.killed = ev.Text
	case execboundary.EventUnchecked:
		g.unchecked = ev.Text
	}
}

// gateEventsKey is the key of a task's gateEvents among its annotations.
type gateEventsKey struct{}

// eventsFor returns the task's gateEvents, made on first use.
func eventsFor(task terminal.GateTask) *gateEvents {
	return task.Annotation(gateEventsKey{}, func() any { return &gateEvents{} }).(*gateEvents)
}

// ReasonPolicyDenied is the diagnosis of a task whose exec the policy
// refused.
const ReasonPolicyDenied = "policy_denied"

// taskReport adds what the exec boundary and the sandbox did to a task's
// result, out being the output it shows.
func taskReport(task *terminal.Task, out, head string, diag terminal.Diagnosis) (string, terminal.Diagnosis) {
	ev := loadEvents(task)
	if ev == nil {
		return head, diag
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	notes, diag := ev.gateNotes(diag)
	more, diag := ev.sandboxNotes(out, task.Status().Dir, diag)
	return withNotes(head, append(notes, more...)), diag
}

// gateNotes is what the exec boundary did: a denial becomes the diagnosis
// (the model must ask the user, not retry another way), a kill after a
// failed image check and a best-effort run without the gate are said in the
// head of every result. ev.mu is held.
func (ev *gateEvents) gateNotes(diag terminal.Diagnosis) ([]string, terminal.Diagnosis) {
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
	return notes, diag
}

// loadEvents returns task's events; nil when nothing was reported.
func loadEvents(task *terminal.Task) *gateEvents {
	ev, _ := task.Annotation(gateEventsKey{}, nil).(*gateEvents)
	return ev
}

// withNotes puts notes, one a line, before head.
func withNotes(head string, notes []string) string {
	if len(notes) == 0 {
		return head
	}
	if head != "" {
		notes = append(notes, head)
	}
	return strings.Join(notes, "\n")
}

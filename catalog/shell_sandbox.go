package catalog

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/internal/userdir"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// ReasonSandboxRefused is the diagnosis of a task whose write or connection
// the sandbox refused.
const ReasonSandboxRefused = "sandbox_refused"

// SandboxState is what a session's shell tools remember about the sandbox:
// whether a network namespace can be made here (probed once), and the
// policy the last result described, so that the first result under a new
// policy lists what the task may write.
type SandboxState struct {
	probeOnce sync.Once
	probeErr  error

	mu        sync.Mutex
	described string
}

func (s *SandboxState) namespaces(gate *execboundary.Gate) error {
	s.probeOnce.Do(func() {
		helper := gate.HelperArgv()
		if len(helper) == 0 {
			s.probeErr = fmt.Errorf("cannot find the whale-ls executable to start the task in a network namespace")
			return
		}
		s.probeErr = sandbox.Probe(append(helper, "--probe"))
	})
	return s.probeErr
}

// firstTime reports whether text was not the policy described last, and
// remembers it.
func (s *SandboxState) firstTime(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.described == text {
		return false
	}
	s.described = text
	return true
}

// sandboxFor returns the policy a task runs under (nil: none), and the note
// every result of the task carries when the sandbox cannot apply here and
// the task runs unconfined (with shell.sandbox and shell.network unset, only
// the session's first such task carries it). It fails when the settings ask
// for the sandbox, it cannot apply, and execBoundary.mode is enforce.
func (sh Shell) sandboxFor(cfg settings.Settings, env []string) (*sandbox.Policy, string, error) {
	var ws []string
	if sh.Workspace != nil {
		for _, r := range sh.Workspace.Roots() {
			if r.Kind == workspace.KindWorkspace {
				ws = append(ws, r.Real)
			}
		}
	}
	var hide []string
	if run, err := userdir.Runtime(); err == nil {
		hide = append(hide, run) // whale's locks and sockets
	}
	p, err := sandbox.Plan(sandbox.Options{Mode: cfg.Shell.Sandbox, Network: cfg.Shell.Network, Workspace: ws, Extra: cfg.Shell.WritableRoots, GitWritable: cfg.Shell.GitWritable, Hide: hide, Env: append(os.Environ(), env...), Temp: sh.sandboxTemp})
	if err != nil {
		return nil, "", toolbridge.Fail(toolbridge.CodeNotConfigured, "%v, so the command was not run; ask the user to fix the setting", err)
	}
	if !p.Active() {
		return nil, "", nil
	}
	explicit := cfg.Shell.Sandbox != "" || cfg.Shell.Network != ""
	if sh.Gate == nil && !explicit {
		// A Shell built without the exec boundary has no helper to confine
		// with; only settings that ask for the sandbox make that a fault.
		return nil, "", nil
	}
	why := sandbox.Check(p)
	if why == nil && sh.Gate == nil {
		why = fmt.Errorf("there is no exec gate to apply it")
	}
	if why == nil && p.Network != sandbox.NetOn && sh.SandboxState != nil {
		why = sh.SandboxState.namespaces(sh.Gate)
	}
	if why == nil {
		return &p, "", nil
	}
	what := fmt.Sprintf("shell.sandbox %s, shell.network %s", p.Mode, p.Network)
	mode := execboundary.ModeEnforce
	if sh.Gate != nil {
		mode = sh.Gate.Mode()
	}
	if explicit && mode == execboundary.ModeEnforce {
		return nil, "", toolbridge.Fail(toolbridge.CodeDenied, "the sandbox (%s) cannot be applied here (%v) and execBoundary.mode is enforce, so the command was not run; ask the user to set shell.sandbox to off and shell.network to on, or execBoundary.mode to best-effort, in their user settings", what, why)
	}
	if !explicit {
		// Nobody asked for the sandbox: say it in the first result, not in
		// every one (on macOS and Windows that would be every result).
		note := fmt.Sprintf("The sandbox (%s) cannot be applied here (%v); shell.sandbox and shell.network are not set, so commands run unconfined.", what, why)
		if sh.SandboxState != nil && !sh.SandboxState.firstTime(note) {
			return nil, "", nil
		}
		return nil, note, nil
	}
	return nil, fmt.Sprintf("The sandbox (%s) cannot be applied here (%v); execBoundary.mode is %s, so this command ran unconfined.", what, why, mode), nil
}

// noteSandbox records for task's results the policy it runs under, whether
// its first result lists the policy, and the note of an unconfined run.
func (sh Shell) noteSandbox(task *terminal.Task, p *sandbox.Policy, unconfined string) {
	if p == nil && unconfined == "" {
		return
	}
	ev := eventsFor(task)
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.policy = p
	ev.unconfined = unconfined
	if p != nil && sh.SandboxState != nil && sh.SandboxState.firstTime(p.Describe()) {
		ev.describe = "[" + sandboxBrief(*p) + "]"
	}
}

// sandboxBrief is the one line a session's first result under a policy
// carries: the mode, the kinds of folders writable, the network. The
// folders themselves are named where it matters: in the diagnosis of a
// refused write, and by `whale-ls settings`.
func sandboxBrief(p sandbox.Policy) string {
	if p.Mode == sandbox.Off {
		return "sandbox off: writes are not confined; network " + string(p.Network)
	}
	var workspaces, temps, caches int
	var roots []string
	for _, r := range p.Writable {
		switch r.Why {
		case "workspace":
			workspaces++
		case "temp folder":
			temps++
		case "shell.writableRoots":
			roots = append(roots, r.Path)
		default:
			caches++
		}
	}
	var parts []string
	if workspaces > 0 {
		parts = append(parts, "the workspace (.git included)")
	}
	if temps > 0 {
		parts = append(parts, "the temp folders")
	}
	if caches > 0 {
		parts = append(parts, fmt.Sprintf("%d toolchain %s", caches, editPlural(caches, "cache", "caches")))
	}
	if len(roots) > 0 {
		parts = append(parts, strings.Join(roots, ", ")+" (shell.writableRoots)")
	}
	where := "nowhere"
	if len(parts) > 0 {
		where = strings.Join(parts, ", ")
	}
	line := fmt.Sprintf("sandbox %s: writes only in %s; network %s", p.Mode, where, p.Network)
	if len(p.Skipped) > 0 {
		line += "; shell.writableRoots skipped: " + strings.Join(p.Skipped, ", ")
	}
	return line
}

// sandboxNotes is what the sandbox did: the note of an unconfined run and,
// once, the policy go into the head; refused writes and connections found
// in out (run in dir) become the diagnosis. ev.mu is held.
func (ev *gateEvents) sandboxNotes(out, dir string, diag terminal.Diagnosis) ([]string, terminal.Diagnosis) {
	var notes []string
	if ev.unconfined != "" {
		notes = append(notes, ev.unconfined)
	}
	if ev.describe != "" {
		notes = append(notes, ev.describe)
		ev.describe = ""
	}
	if ev.policy != nil && diag.Reason != ReasonPolicyDenied {
		if refused := ev.policy.Explain(out, dir); len(refused) > 0 {
			diag = terminal.Diagnosis{Reason: ReasonSandboxRefused, Hint: ev.policy.Hint(refused)}
		}
	}
	return notes, diag
}

package execboundary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Mode says what happens where the gate cannot be installed.
type Mode string

// Modes of execBoundary.mode.
const (
	// ModeEnforce refuses to run a command the gate cannot watch. It is the
	// default where the gate works.
	ModeEnforce Mode = "enforce"
	// ModeBestEffort runs such a command unchecked and says so in every
	// result of its task.
	ModeBestEffort Mode = "best-effort"
	// ModeOff runs every command without the gate.
	ModeOff Mode = "off"
)

// DefaultApprovalTimeout is how long a prompt waits for the user before the
// exec is denied.
const DefaultApprovalTimeout = 120 * time.Second

// Answer is the user's answer to an approval.
type Answer string

// Answers, the ids of the prompt's options.
const (
	AllowOnce    Answer = "allow_once"
	AllowSession Answer = "allow_session"
	DenyOnce     Answer = "deny"
)

// ErrApprovalTimeout is what an Approver returns when the user did not
// answer in time; the exec is denied.
var ErrApprovalTimeout = errors.New("no answer before the approval timeout")

// ErrNoApprover is what an Approver returns when there is nobody to ask; the
// exec is denied.
var ErrNoApprover = errors.New("there is no one to ask for approval")

// Approval is the question put to the user about one exec.
type Approval struct {
	TaskID string
	// Command is the task's command line.
	Command string
	// Program is the resolved executable; Argv its arguments, argv[0]
	// included; Cwd the process's working folder.
	Program string
	Argv    []string
	Cwd     string
	// Rule is the rule that asks, or why the program is asked about, as
	// the audit log writes it.
	Rule string
	// Why says the same in plain words for the person asked (Rule.Words):
	// "`rm` with `-rf` deletes files recursively or without asking".
	Why string
	// Timeout is how long the user has; the context ends then too.
	Timeout time.Duration
}

// Approver asks the user about an exec and waits for the answer. It is
// declared here and implemented where the editor (or the command line) is.
// Approve must return when ctx ends. An error other than nil denies the
// exec; ErrApprovalTimeout and ErrNoApprover are recorded as such.
type Approver interface {
	Approve(ctx context.Context, a Approval) (Answer, error)
}

// Task is what the gate may do to the task it starts (the terminal
// package's GateTask has the same methods).
type Task interface {
	// ID is the task's id ("t1").
	ID() string
	// Note appends one line to the task's output.
	Note(line string)
	// Hold pauses the task's foreground yield timer until release is called.
	Hold() (release func())
}

// ConfinedTask is a Task whose processes the helper confines (the
// sandbox) before its program runs.
type ConfinedTask interface {
	Task
	// Confinement is the helper's --confine argument; empty confines
	// nothing.
	Confinement() string
}

// Confiner applies a confinement given as the helper's --confine argument
// (the sandbox) to the calling thread, which then executes the task. The
// program that routes the exec-gate subcommand to RunHelper passes it.
type Confiner func(spec string) error

func confinementOf(task Task) string {
	if ct, ok := task.(ConfinedTask); ok {
		return ct.Confinement()
	}
	return ""
}

// EventKind says what an Event reports.
type EventKind string

// The kinds of Event.
const (
	// EventDenied: an exec was refused.
	EventDenied EventKind = "denied"
	// EventKilled: the image check failed and the task was killed.
	EventKilled EventKind = "killed"
	// EventUnchecked: best-effort mode ran the task without the gate.
	EventUnchecked EventKind = "unchecked"
)

// Event is something the gate reports about a task besides its output line.
type Event struct {
	Kind    EventKind
	Program string
	Rule    string
	// Text is the sentence for the model.
	Text string
}

// EventTask is implemented by a Task that wants to know about denials and
// unchecked runs (to put them into the task's results).
type EventTask interface {
	Task
	ExecEvent(Event)
}

// State is the gate's state as the initialize result and the command line
// report it.
type State struct {
	Mode Mode `json:"mode"`
	// Available: the gate can be installed on this system.
	Available bool `json:"available"`
	// Active: shell tasks run behind the gate.
	Active bool `json:"active"`
	// Reason explains why the gate is not available or not active.
	Reason string `json:"reason,omitempty"`
}

// Text is a one-line description of the state.
func (s State) Text() string {
	switch {
	case s.Active:
		return fmt.Sprintf("exec boundary: active (mode %s): every program a shell task runs is checked", s.Mode)
	case s.Mode == ModeOff:
		return "exec boundary: off (execBoundary.mode is off): shell tasks run unchecked"
	case s.Mode == ModeBestEffort && runtime.GOOS == "linux":
		return fmt.Sprintf("exec boundary: unavailable (%s); mode best-effort: shell tasks run unchecked", s.Reason)
	}
	if runtime.GOOS != "linux" {
		return fmt.Sprintf("exec boundary: pre-start check (%s); mode %s: the programs a command line names are checked before it starts, programs started later are not", s.Reason, s.Mode)
	}
	return fmt.Sprintf("exec boundary: unavailable (%s); mode enforce: shell commands are refused", s.Reason)
}

// Options configure a Gate.
type Options struct {
	// Approver asks the user; nil denies every "ask".
	Approver Approver
	// Audit records decisions; nil records nothing.
	Audit *AuditLog
	// Helper is the argv that runs RunHelper (this executable and its
	// hidden subcommand). Nil means this executable with "exec-gate".
	Helper []string
	Log    *slog.Logger
}

// HelperArgv is the argv that runs the helper; nil when this executable
// was not found.
func (g *Gate) HelperArgv() []string { return append([]string(nil), g.helper...) }

// HelperCommand is the subcommand name a program must route to RunHelper
// when Options.Helper is left nil.
const HelperCommand = "exec-gate"

// Gate starts shell tasks behind the exec boundary and answers their
// execs. It is safe for concurrent use.
type Gate struct {
	approver Approver
	audit    *AuditLog
	helper   []string
	log      *slog.Logger

	mu      sync.Mutex
	mode    Mode
	modeSet bool
	policy  *Policy
	timeout time.Duration
	session map[string]bool // program+rule allowed for this session
	// open holds, per session key, the prompts being asked now, so that
	// "allow for this session" on one of them settles the others.
	open   map[string]map[int]context.CancelCauseFunc
	nextID int
	probed bool
	probe  error // why the gate cannot be installed; nil when it can

	// onJoin, set by tests only, is called after an exec joined a pending
	// prompt, with the number of execs now waiting for its answer.
	onJoin func(waiting int)
}

// NewGate makes a gate with the default rules and mode.
func NewGate(o Options) *Gate {
	g := &Gate{approver: o.Approver, audit: o.Audit, helper: o.Helper, log: o.Log, timeout: DefaultApprovalTimeout, session: map[string]bool{}, open: map[string]map[int]context.CancelCauseFunc{}}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if g.helper == nil {
		if exe, err := os.Executable(); err == nil {
			g.helper = []string{exe, HelperCommand}
		}
	}
	g.policy, _ = NewPolicy(DefaultRules())
	return g
}

// Configure applies execBoundary.mode, .rules and .approvalTimeoutMs. An
// empty mode means the default (enforce), empty rules the default rules.
// Invalid rules keep the previous policy and are returned as the error; an
// unknown mode is an error and keeps the previous mode.
func (g *Gate) Configure(mode string, rules json.RawMessage, approvalTimeoutMs int) error {
	var errs []error
	m := Mode(strings.ToLower(strings.TrimSpace(mode)))
	switch m {
	case "", ModeEnforce, ModeBestEffort, ModeOff:
	default:
		errs = append(errs, fmt.Errorf("execBoundary.mode %q is not one of enforce, best-effort, off; keeping %s", mode, g.Mode()))
		m = g.Mode()
	}
	var pol *Policy
	parsed, err := ParseRules(rules)
	if err == nil {
		pol, err = NewPolicy(parsed)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("%w; keeping the previous rules", err))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mode, g.modeSet = m, m != ""
	if pol != nil {
		g.policy = pol
	}
	g.timeout = DefaultApprovalTimeout
	if approvalTimeoutMs > 0 {
		g.timeout = time.Duration(approvalTimeoutMs) * time.Millisecond
	}
	return errors.Join(errs...)
}

// Mode returns the mode in force.
func (g *Gate) Mode() Mode {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mode == "" {
		return ModeEnforce
	}
	return g.mode
}

// Policy returns the policy in force.
func (g *Gate) Policy() *Policy {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.policy
}

func (g *Gate) approvalTimeout() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.timeout
}

// State reports whether the gate works here and what the mode makes of it.
// The first call checks the system (it runs the helper once on Linux).
func (g *Gate) State() State {
	err := g.available()
	st := State{Mode: g.Mode(), Available: err == nil}
	if err != nil {
		st.Reason = err.Error()
	}
	st.Active = st.Available && st.Mode != ModeOff
	return st
}

func (g *Gate) available() error {
	g.mu.Lock()
	if g.probed {
		defer g.mu.Unlock()
		return g.probe
	}
	g.mu.Unlock()
	err := probeGate(g.helper)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.probed, g.probe = true, err
	return err
}

// remembered reports whether the user allowed key (sessionKey) for the
// session.
func (g *Gate) remembered(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.session[key]
}

// remember allows key for the session and settles every other prompt open
// for the same key: the user already said yes to it.
func (g *Gate) remember(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.session[key] = true
	for _, settle := range g.open[key] {
		settle(errAllowedForSession)
	}
}

// track registers a prompt about to be asked for key; it reports false,
// registering nothing, when key was allowed for the session meanwhile.
func (g *Gate) track(key string, settle context.CancelCauseFunc) (id int, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.session[key] {
		return 0, false
	}
	if g.open[key] == nil {
		g.open[key] = map[int]context.CancelCauseFunc{}
	}
	g.nextID++
	g.open[key][g.nextID] = settle
	return g.nextID, true
}

func (g *Gate) untrack(key string, id int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.open[key], id)
	if len(g.open[key]) == 0 {
		delete(g.open, key)
	}
}

// sessionKey is what an "allow for this session" answer allows: the
// program with the arguments, in the folder, that the prompt showed — not
// every later exec the same rule asks about.
func sessionKey(program string, argv []string, cwd string) string {
	return program + "\x00" + cwd + "\x00" + strings.Join(argv, "\x00")
}

// errAllowedForSession is the cause with which an open prompt is withdrawn
// when the user allowed the same exec for the session in another one.
var errAllowedForSession = errors.New("the user allowed this command for the session in another prompt")

// errGone is the cause with which a pending prompt is withdrawn: every
// exec waiting for it ended (its process died, or its whole task did).
var errGone = errors.New("every exec waiting for the approval ended")

// ask puts an "ask" verdict to the user, holding the task's yield timer
// meanwhile, and returns whether the exec may run and who decided. The
// prompt is withdrawn when ctx ends (ByGone), or when the user allows the
// same exec (sessionKey) for the session in another prompt (BySession); it
// ends by itself after the approval timeout (ByTimeout).
func (g *Gate) ask(ctx context.Context, task Task, a Approval, sessionKey string) (bool, string) {
	if g.remembered(sessionKey) {
		return true, BySession
	}
	if g.approver == nil {
		return false, ByNoOne
	}
	if ctx.Err() != nil {
		return false, ByGone
	}
	release := task.Hold()
	defer release()
	a.Timeout = g.approvalTimeout()
	tctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	pctx, settle := context.WithCancelCause(tctx)
	defer settle(nil)
	id, ok := g.track(sessionKey, settle)
	if !ok {
		return true, BySession
	}
	ans, err := g.approver.Approve(pctx, a)
	g.untrack(sessionKey, id)
	switch {
	case err != nil && errors.Is(context.Cause(pctx), errAllowedForSession):
		return true, BySession
	case err != nil && ctx.Err() != nil:
		return false, ByGone
	case errors.Is(err, ErrApprovalTimeout) || (err != nil && tctx.Err() != nil):
		return false, ByTimeout
	case errors.Is(err, ErrNoApprover):
		return false, ByNoOne
	case err != nil:
		g.log.Warn("approval failed; denying the exec", "err", err)
		return false, ByNoOne
	}
	switch ans {
	case AllowOnce:
		return true, ByUser
	case AllowSession:
		g.remember(sessionKey)
		return true, ByUser
	}
	return false, ByUser
}

// denialLine is the line a denial leaves in the task's output.
func denialLine(program string, v Verdict, by string) string {
	why := ""
	switch by {
	case ByUser:
		why = "; the user said no"
	case ByTimeout:
		why = "; nobody answered the approval in time"
	case ByNoOne:
		why = "; nobody could be asked to approve it"
	}
	return fmt.Sprintf("whale: policy denied %s (rule: %s%s)", program, v.RuleText(), why)
}

// DeniedHint is what a result says after a denial.
const DeniedHint = "The user's exec policy refused a program this command tried to run (see the \"whale: policy denied\" line). Do not try to run it another way (other paths, copies, interpreters, wrappers): ask the user to run it or to change execBoundary.rules."

// UncheckedHint is what a result of a best-effort task says.
func UncheckedHint(reason string) string {
	return fmt.Sprintf("The exec boundary is not active (%s); execBoundary.mode is best-effort, so this command ran without its programs being checked.", reason)
}

func notify(task Task, ev Event) {
	if et, ok := task.(EventTask); ok {
		et.ExecEvent(ev)
	}
}

// commandOf returns the command line of a task's argv (the text after -c).
func commandOf(args []string) string {
	for i := len(args) - 2; i >= 0; i-- {
		if args[i] == "-c" {
			return args[i+1]
		}
	}
	return strings.Join(args, " ")
}

// refusal is the error text of a command refused in mode enforce.
func refusal(reason string) string {
	return fmt.Sprintf("the exec boundary cannot be installed here (%s) and execBoundary.mode is enforce, so the command was not run; ask the user to fix that, or to set execBoundary.mode to best-effort to run commands unchecked", reason)
}

// execCall is one exec syscall the filter turns into a notification.
type execCall struct {
	arch, nr uint32
	// at: execveat (dirfd, path, argv, envp, flags); else execve (path,
	// argv, envp).
	at bool
	// ptr32: the caller's pointers are 32 bits wide (i386, x32, arm).
	ptr32 bool
}

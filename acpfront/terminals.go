package acpfront

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// createTerminalParams is terminal/create's params.
type createTerminalParams struct {
	SessionID       string   `json:"sessionId"`
	Command         string   `json:"command"`
	Args            []string `json:"args"`
	Env             []EnvVar `json:"env"`
	Cwd             *string  `json:"cwd"`
	OutputByteLimit *int64   `json:"outputByteLimit"`
}

// terminalParams is the params of terminal/output, wait_for_exit, kill
// and release.
type terminalParams struct {
	SessionID  string `json:"sessionId"`
	TerminalID string `json:"terminalId"`
}

// keptOutput bounds the output kept of a terminal without an
// outputByteLimit.
const keptOutput = 1 << 20

// terminals holds the output and exit of each task started for the agent,
// fed by the task table's sink.
type terminals struct {
	mu   sync.Mutex
	byID map[string]*term
}

// term is one terminal: its output (the newest limit bytes) and its exit.
type term struct {
	limit     int
	out       []byte
	truncated bool
	exited    chan struct{}
	exitCode  int
	signal    string
	released  bool
}

func newTerminals() *terminals {
	return &terminals{byID: map[string]*term{}}
}

// getLocked returns the terminal of id, made on first use (the sink may report a
// task before terminal/create returns its id).
func (ts *terminals) getLocked(id string) *term {
	t := ts.byID[id]
	if t == nil {
		t = &term{limit: keptOutput, exited: make(chan struct{})}
		ts.byID[id] = t
	}
	return t
}

// TerminalSink is the task table's terminal.Sink for the proxy: it keeps
// what the agent's terminal/output returns.
type TerminalSink struct{ t *terminals }

// Open is part of terminal.Sink.
func (s *TerminalSink) Open(info terminal.TaskInfo) {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	s.t.getLocked(info.ID)
}

// Output is part of terminal.Sink: the newest bytes up to the limit are
// kept, cut at a character boundary.
func (s *TerminalSink) Output(taskID string, _ int64, data string) {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	t := s.t.getLocked(taskID)
	t.out = append(t.out, data...)
	t.trimLocked()
}

// Exit is part of terminal.Sink.
func (s *TerminalSink) Exit(taskID string, exitCode int, signal string) {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	t := s.t.getLocked(taskID)
	select {
	case <-t.exited:
	default:
		t.exitCode, t.signal = exitCode, signal
		close(t.exited)
	}
}

// trimLocked drops the oldest output beyond the limit.
func (t *term) trimLocked() {
	if len(t.out) <= t.limit {
		return
	}
	cut := len(t.out) - t.limit
	for cut < len(t.out) && !utf8.RuneStart(t.out[cut]) {
		cut++
	}
	t.out = append([]byte(nil), t.out[cut:]...)
	t.truncated = true
}

// exitStatus is ACP's TerminalExitStatus: exitCode null when a signal
// ended the process.
func (t *term) exitStatus() map[string]any {
	st := map[string]any{"exitCode": t.exitCode, "signal": nil}
	if t.signal != "" {
		st["exitCode"], st["signal"] = nil, t.signal
	}
	return st
}

// lookup finds a terminal the agent created and has not released.
func (ts *terminals) lookup(id string) (*term, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.byID[id]
	if t == nil || t.released {
		return nil, toolbridge.Fail(toolbridge.CodeTaskNotFound, "there is no terminal %q (it was released, or never created); create one with terminal/create", id)
	}
	return t, nil
}

// output answers terminal/output.
func (ts *terminals) output(id string) (any, error) {
	t, err := ts.lookup(id)
	if err != nil {
		return nil, err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	res := map[string]any{"output": string(t.out), "truncated": t.truncated}
	select {
	case <-t.exited:
		res["exitStatus"] = t.exitStatus()
	default:
	}
	return res, nil
}

// waitForExit answers terminal/wait_for_exit once the command exited.
func (ts *terminals) waitForExit(ctx context.Context, id string) (any, error) {
	t, err := ts.lookup(id)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.exited:
	case <-ctx.Done():
		return nil, toolbridge.Fail(toolbridge.CodeCanceled, "the wait for terminal %s was canceled; the command keeps running — kill it with terminal/kill if it should stop", id)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return t.exitStatus(), nil
}

// createTerminal answers terminal/create: the command runs as a shell task
// of the session (exec boundary, sandbox, journal of what it changed) in a
// pipe, in the background; its id is the terminal's.
func (p *Proxy) createTerminal(ctx context.Context, sess *session.Session, in createTerminalParams) (any, error) {
	command := strings.TrimSpace(in.Command)
	if command == "" {
		return nil, toolbridge.Fail(toolbridge.CodeInvalidInput, "command is empty; give the program to run in command and its arguments in args")
	}
	if len(in.Args) > 0 {
		words := []string{shellQuote(in.Command)}
		for _, a := range in.Args {
			words = append(words, shellQuote(a))
		}
		command = strings.Join(words, " ")
	}
	cwd := ""
	if in.Cwd != nil {
		cwd = *in.Cwd
	}
	if err := judge(sess, command, cwd); err != nil {
		return nil, err
	}
	input := map[string]any{"command": command, "background": true, "mode": "pipe"}
	if cwd != "" {
		input["cwd"] = cwd
	}
	if len(in.Env) > 0 {
		input["env"] = in.Env
	}
	raw, _ := json.Marshal(input)
	env := sess.Registry.Dispatch(ctx, toolbridge.Call{Name: "shell_run", Input: raw})
	if !env.OK {
		return nil, &toolbridge.Failure{Code: env.Code, Text: env.Text}
	}
	id := taskIDOf(env.Data)
	if id == "" {
		return nil, toolbridge.Fail(toolbridge.CodeInternal, "the command started but whale lost its task id; run it again")
	}
	p.terms.mu.Lock()
	t := p.terms.getLocked(id)
	if in.OutputByteLimit != nil && *in.OutputByteLimit >= 0 {
		t.limit = int(min(*in.OutputByteLimit, 64<<20))
		t.trimLocked()
	}
	p.terms.mu.Unlock()
	return map[string]string{"terminalId": id}, nil
}

// judge refuses a command the exec boundary denies before it starts; the
// boundary still checks every program the command runs.
func judge(sess *session.Session, command, cwd string) error {
	j, err := catalog.JudgeShellCommand(sess.Workspace, sess.Gate, command, cwd)
	if err != nil {
		return err
	}
	if j.Boundary != execboundary.OutlookDeny {
		return nil
	}
	dir := cwd
	if dir == "" {
		dir = sess.Workspace.Roots()[0].Path
	}
	why := sess.Gate.JudgeCommand(command, dir)
	reason := why.Off
	for _, prog := range why.Programs {
		if prog.Verdict.Decision == execboundary.Deny {
			reason = fmt.Sprintf("%s is denied by %s", prog.Path, prog.Verdict.RuleText())
			break
		}
	}
	return toolbridge.Fail(toolbridge.CodeDenied, "whale's exec boundary refuses this command (%s); it did not run — do not try to run it another way, ask the user", reason)
}

// killTerminal answers terminal/kill (the command's whole process tree
// stops; the terminal stays for its output) and terminal/release (the
// same, and the terminal is forgotten).
func (p *Proxy) killTerminal(sess *session.Session, id string, release bool) (any, error) {
	t, err := p.terms.lookup(id)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.exited:
	default:
		if _, err := sess.Terminals.Cancel(id); err != nil {
			p.log.Debug("cancel task", "id", id, "err", err)
		}
	}
	if release {
		p.terms.mu.Lock()
		t.released, t.out = true, nil
		p.terms.mu.Unlock()
	}
	return map[string]any{}, nil
}

// taskIDOf reads shell_run's task id from its result data.
func taskIDOf(data any) string {
	raw, err := json.Marshal(data)
	if err != nil {
		return ""
	}
	var d struct {
		TaskID string `json:"task_id"`
	}
	_ = json.Unmarshal(raw, &d)
	return d.TaskID
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

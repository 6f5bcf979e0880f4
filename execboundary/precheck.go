package execboundary

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/whale-ls/whale-ls/shellcmd"
)

// CommandTask is a Task that knows its command line as the model gave it;
// the pre-start check parses it. Without it the text after the shell's -c
// is used.
type CommandTask interface {
	Task
	Command() string
}

// ParsedTask is a CommandTask that also has its command line's parse, which
// the pre-start check then reads instead of parsing the line again.
type ParsedTask interface {
	CommandTask
	Parsed() *shellcmd.Line
}

// NotCheckedHint is what every result of a task started after the
// pre-start check says: what the check covers and what it does not.
func NotCheckedHint(reason string) string {
	return fmt.Sprintf("The exec boundary cannot watch programs here (%s): the programs this command line names were checked against execBoundary.rules before it started (through pipes, $(…), sh -c, xargs, find -exec and env/nice/time/command prefixes), but programs started later by scripts, Makefiles or interpreters, and program names computed when the command runs, are not checked.", reason)
}

// precheck judges every program a command line names before the task
// starts, asking the user where a rule says ask. It returns an error (the
// command must not run) when one is denied.
func (g *Gate) precheck(cmd *exec.Cmd, task Task, reason string) error {
	command := commandOf(cmd.Args)
	var parsed *shellcmd.Line
	if ct, ok := task.(CommandTask); ok && ct.Command() != "" {
		command = ct.Command()
	}
	if pt, ok := task.(ParsedTask); ok {
		parsed = pt.Parsed()
	}
	cl := ParseLine(shellcmd.Of(parsed, command))
	pol := g.Policy()
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	path := envValue(cmd.Env, "PATH")
	for _, np := range cl.Programs {
		prog := resolveNamed(np.Argv[0], dir, path)
		v := pol.Decide(prog, np.Argv)
		by := ByPolicy
		ok := v.Decision == Allow
		if v.Decision == Ask {
			a := Approval{TaskID: task.ID(), Command: command, Program: prog.Path, Argv: np.Argv, Cwd: dir, Rule: v.RuleText(), Why: v.Words(np.Argv)}
			ok, by = g.ask(context.Background(), task, a, sessionKey(prog.Path, np.Argv, dir))
		}
		decision := "deny"
		if ok {
			decision = "allow"
		}
		if v.Decision != Allow || by != ByPolicy {
			if err := g.audit.Write(AuditEntry{Task: task.ID(), Program: prog.Path, Argv: np.Argv, Cwd: dir, Decision: decision, Rule: v.RuleText(), DecidedBy: by}); err != nil {
				g.log.Warn("exec decisions are not audited", "err", err)
			}
		}
		if !ok {
			line := denialLine(prog.Path, v, by)
			task.Note(line)
			notify(task, Event{Kind: EventDenied, Program: prog.Path, Rule: v.RuleText(), Text: line})
			return errors.New(line + ", so the command was not run (checked before the start: " + reason + "). " + DeniedHint)
		}
	}
	hint := NotCheckedHint(reason)
	if cl.ParseError != "" {
		hint += " The command line is not valid Bash syntax (" + cl.ParseError + "), so its programs were guessed from a simple split."
	}
	if len(cl.Unjudged) > 0 {
		var parts []string
		for i, u := range cl.Unjudged {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(cl.Unjudged)-3))
				break
			}
			text := u.Text
			if len(text) > 60 {
				text = text[:59] + "…"
			}
			parts = append(parts, fmt.Sprintf("`%s` (%s)", text, u.Why))
		}
		hint += " Not checked in this command: " + strings.Join(parts, "; ") + "."
	}
	task.Note("whale: " + hint)
	notify(task, Event{Kind: EventUnchecked, Text: hint})
	return nil
}

// resolveNamed finds the file a program name runs, as the shell would (a
// path relative to dir, or a search of path); a name not found is judged by
// name alone.
func resolveNamed(name, dir, path string) Program {
	try := func(p string) (Program, bool) {
		for _, cand := range executableNames(p) {
			if fi, err := os.Stat(cand); err == nil && !fi.IsDir() {
				if prog, err := ProgramFromPath(cand); err == nil {
					prog.Given = name
					return prog, true
				}
			}
		}
		return Program{}, false
	}
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if prog, ok := try(p); ok {
			return prog
		}
		return Program{Path: p, Given: name}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if prog, ok := try(filepath.Join(d, name)); ok {
			return prog
		}
	}
	return Program{Path: name, Given: name}
}

// executableNames is p, and on Windows p with each PATHEXT extension.
func executableNames(p string) []string {
	if runtime.GOOS != "windows" || filepath.Ext(p) != "" {
		return []string{p}
	}
	exts := os.Getenv("PATHEXT")
	if exts == "" {
		exts = ".COM;.EXE;.BAT;.CMD"
	}
	out := []string{p}
	for _, e := range filepath.SplitList(exts) {
		out = append(out, p+strings.ToLower(e))
	}
	return out
}

// envValue is the last NAME=value of env, else this process's variable.
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return os.Getenv(name)
}

// Outlook is what the exec boundary will do with a command, as Judge tells
// it before the command runs.
type Outlook string

// Outlooks of Judge.
const (
	// OutlookAllow: every program the command line names runs without a question.
	OutlookAllow Outlook = "allow"
	// OutlookAsk: a rule says ask for one of them; the user will be asked.
	OutlookAsk Outlook = "ask"
	// OutlookDeny: one of them is denied, or commands are refused here
	// (mode enforce where the gate cannot be installed).
	OutlookDeny Outlook = "deny"
	// OutlookUnchecked: nothing is checked (mode off, or best-effort where
	// the gate cannot be installed).
	OutlookUnchecked Outlook = "unchecked"
)

// ProgramOutlook is what the exec boundary will do with one program a
// command line names.
type ProgramOutlook struct {
	// Argv is the program and its arguments as written (NamedProgram).
	Argv []string
	// Via is how the command line reaches it ("sh -c", "xargs", …; "" for a
	// plain command).
	Via string
	// Path is the executable it resolves to from the command's folder; the
	// name as written when none is found.
	Path    string
	Verdict Verdict
}

// Judgement is Judge's answer with its parts, for a person to read.
type Judgement struct {
	Outlook Outlook
	// Programs are the programs the command line names, each judged; empty
	// when the outlook does not come from the policy (Off is set).
	Programs []ProgramOutlook
	// Unjudged are the parts whose program is only known when they run.
	Unjudged []Unjudged
	// Off says, in plain words, why nothing is judged: the boundary is off,
	// or cannot watch programs here ("" when the policy judged).
	Off string
	// ParseError is set when the command is not valid Bash syntax (its
	// programs were guessed from a simple split).
	ParseError string
}

// JudgeCommand is Judge with the programs it judged and why.
func (g *Gate) JudgeCommand(command, dir string) Judgement {
	st := g.State()
	switch {
	case st.Mode == ModeOff:
		return Judgement{Outlook: OutlookUnchecked, Off: "the exec boundary is off (execBoundary.mode is off), so no program of this command is checked"}
	case runtime.GOOS == "linux" && !st.Available && st.Mode == ModeBestEffort:
		return Judgement{Outlook: OutlookUnchecked, Off: "the exec boundary cannot watch programs on this machine (" + st.Reason + "), so this command runs unchecked (execBoundary.mode is best-effort)"}
	case runtime.GOOS == "linux" && !st.Available:
		return Judgement{Outlook: OutlookDeny, Off: "the exec boundary cannot watch programs on this machine (" + st.Reason + ") and execBoundary.mode is enforce, so whale refuses to run commands"}
	}
	pol := g.Policy()
	path := os.Getenv("PATH")
	cl := ParseCommandLine(command)
	j := Judgement{Outlook: OutlookAllow, Unjudged: cl.Unjudged, ParseError: cl.ParseError}
	d := Allow
	for _, np := range cl.Programs {
		prog := resolveNamed(np.Argv[0], dir, path)
		v := pol.Decide(prog, np.Argv)
		d = max(d, v.Decision)
		j.Programs = append(j.Programs, ProgramOutlook{Argv: np.Argv, Via: np.Via, Path: prog.Path, Verdict: v})
	}
	switch d {
	case Ask:
		j.Outlook = OutlookAsk
	case Deny:
		j.Outlook = OutlookDeny
	}
	return j
}

// Judge says, before a command runs in dir, what the exec boundary will do
// with it: for the programs its command line names (ParseCommandLine), the
// strictest policy decision. Programs that a script or an interpreter starts
// later are not seen (on Linux the gate still judges them when they run),
// and an "allow for this session" answer does not change the outlook. Editors
// use it to ask the user once: not again before a command the boundary will
// ask about or refuse anyway.
func (g *Gate) Judge(command, dir string) Outlook {
	return g.JudgeCommand(command, dir).Outlook
}

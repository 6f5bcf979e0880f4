package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed shell_run.md
var shellRunDoc string

//go:embed shell_wait.md
var shellWaitDoc string

//go:embed write_stdin.md
var writeStdinDoc string

//go:embed shell_cancel.md
var shellCancelDoc string

// shellTools is the shell group: shell_run, shell_wait, write_stdin,
// shell_cancel, all acting on d.Terminals.
func shellTools(d *Deps) []toolbridge.Tool {
	return []toolbridge.Tool{shellRunTool(d), shellWaitTool(d), writeStdinTool(d), shellCancelTool(d)}
}

// Limits of the shell tools' waits.
const (
	shellDefaultStdin  = 2 * time.Second
	shellStdinQuiet    = 300 * time.Millisecond
	shellCancelTimeout = 30 * time.Second
)

// shellMaxEnvEntry is the longest NAME=value the kernel passes to a
// program: on Linux MAX_ARG_STRLEN (32 pages) less the terminating NUL;
// elsewhere 0, no limit per variable.
func shellMaxEnvEntry() int {
	if runtime.GOOS == "linux" {
		return 32*os.Getpagesize() - 1
	}
	return 0
}

type shellRunInput struct {
	Command     string                 `json:"command"`
	Cwd         string                 `json:"cwd"`
	Mode        string                 `json:"mode"`
	YieldTimeMs *int                   `json:"yield_time_ms"`
	Background  bool                   `json:"background"`
	Env         []toolbridge.NameValue `json:"env"`
	Cols        int                    `json:"cols"`
	Rows        int                    `json:"rows"`
}

// shellData is the structured part of every shell tool's result.
type shellData struct {
	TaskID    string                 `json:"task_id"`
	Status    string                 `json:"status"`
	ExitCode  *int                   `json:"exit_code,omitempty"`
	Signal    string                 `json:"signal,omitempty"`
	Canceled  bool                   `json:"canceled,omitempty"`
	PTY       bool                   `json:"pty"`
	ElapsedMs int64                  `json:"elapsed_ms"`
	Diagnosis *terminal.Diagnosis    `json:"diagnosis,omitempty"`
	ReadOnly  *bool                  `json:"read_only,omitempty"`
	Cancel    *terminal.CancelReport `json:"cancel,omitempty"`
	// Survivors are the processes a finished task started that still run.
	Survivors []terminal.Process `json:"survivors,omitempty"`
}

func shellRunTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "shell_run",
		Description: shellRunDoc,
		Group:       toolbridge.GroupShell,
		InputSchema: toolbridge.Object([]string{"command"}, map[string]*toolbridge.Schema{
			"command":       toolbridge.Str("The shell command line, run with the configured shell's -c (bash by default); over 128 KiB, write a script file and run that."),
			"cwd":           toolbridge.PathStr("Working folder inside the workspace (default: the workspace root)."),
			"mode":          toolbridge.Enum("Transport: auto (default: a terminal for interactive or password-asking commands, else a pipe), pipe, or pty.", "auto", "pipe", "pty"),
			"yield_time_ms": toolbridge.Int("How long to wait in the foreground before returning a task_id (default 15000; about 3000 for dev servers and watchers).", 0),
			"background":    toolbridge.Bool("Return at once with a task_id instead of waiting (default false)."),
			"env":           toolbridge.NameValues("Extra environment variables for the command, e.g. [{\"name\": \"GOFLAGS\", \"value\": \"-count=1\"}].", "Variable name, without '='.", "Its value (text; no expansion of $VAR)."),
			"cols":          toolbridge.Int("Terminal width for pty mode (default 120).", 10),
			"rows":          toolbridge.Int("Terminal height for pty mode (default 30).", 2),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in shellRunInput) (toolbridge.Result, error) {
		table, err := terminals(d)
		if err != nil {
			return toolbridge.Result{}, err
		}
		command := strings.TrimSpace(in.Command)
		if command == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "command is empty; give the command line to run, e.g. {\"command\": \"go test ./...\"}")
		}
		dir, err := shellDir(d, in.Cwd)
		if err != nil {
			return toolbridge.Result{}, err
		}
		s := d.Settings().Shell
		table.SetSettings(terminal.Settings{Shell: s.Program, YieldTimeMs: s.YieldTimeMs, OutputLimitBytes: s.OutputLimitBytes})
		env := make([]string, 0, len(in.Env))
		for _, kv := range in.Env {
			if kv.Name == "" || strings.ContainsAny(kv.Name, "=\x00") {
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "env name %s is not a valid variable name; use names without '=' such as {\"name\": \"GOFLAGS\", \"value\": \"-count=1\"}", excerpt.Quote(kv.Name))
			}
			if n, limit := len(kv.Name)+1+len(kv.Value), shellMaxEnvEntry(); limit > 0 && n > limit {
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "env %s is %d bytes with its value; the kernel passes at most %d bytes per variable to a program — put the value in a file and pass its path instead", excerpt.Quote(kv.Name), n, limit)
			}
			env = append(env, kv.Name+"="+kv.Value)
		}
		mode := terminal.Mode(in.Mode)
		if mode == "" {
			mode = terminal.ModeAuto
		}
		task, err := table.Start(terminal.StartOptions{Command: command, Dir: dir, Mode: mode, Env: env, Cols: in.Cols, Rows: in.Rows, Gate: d.shellGate()})
		if err != nil {
			return toolbridge.Result{}, startFailure(table, err)
		}
		readOnly := terminal.IsReadOnlyCommand(command)
		if in.Background {
			return shellResult(table, task, &readOnly, fmt.Sprintf("Started %s in the background.", task.ID())), nil
		}
		yield := time.Duration(table.Settings().YieldTimeMs) * time.Millisecond
		if in.YieldTimeMs != nil {
			yield = time.Duration(*in.YieldTimeMs) * time.Millisecond
		} else if task.Kind().LongRunning {
			yield = min(yield, terminal.LongRunningYield)
		}
		yield = min(yield, settings.MaxShellWait)
		task.Wait(ctx, yield)
		if ctx.Err() != nil && task.Running() {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeCanceled, "the call was canceled; %s keeps running — read it with shell_wait {\"task_id\": %q} or stop it with shell_cancel", task.ID(), task.ID())
		}
		return shellResult(table, task, &readOnly, ""), nil
	})
}

type shellWaitInput struct {
	TaskID    string `json:"task_id"`
	TimeoutMs *int   `json:"timeout_ms"`
}

func shellWaitTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "shell_wait",
		Description: shellWaitDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupShell,
		InputSchema: toolbridge.Object([]string{"task_id"}, map[string]*toolbridge.Schema{
			"task_id":    toolbridge.Str("The task to wait for, e.g. \"t1\"."),
			"timeout_ms": toolbridge.Int("How long to wait for the exit (default: the shell yield time, 15000).", 0),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in shellWaitInput) (toolbridge.Result, error) {
		table, task, err := taskOf(d, in.TaskID)
		if err != nil {
			return toolbridge.Result{}, err
		}
		wait := time.Duration(table.Settings().YieldTimeMs) * time.Millisecond
		if in.TimeoutMs != nil {
			wait = time.Duration(*in.TimeoutMs) * time.Millisecond
		}
		task.Wait(ctx, min(wait, settings.MaxShellWait))
		if ctx.Err() != nil && task.Running() {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeCanceled, "the wait was canceled; %s keeps running — call shell_wait again or stop it with shell_cancel", task.ID())
		}
		return shellResult(table, task, nil, ""), nil
	})
}

type writeStdinInput struct {
	TaskID string   `json:"task_id"`
	Input  string   `json:"input"`
	Keys   []string `json:"keys"`
	WaitMs *int     `json:"wait_ms"`
}

func writeStdinTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "write_stdin",
		Description: writeStdinDoc,
		Group:       toolbridge.GroupShell,
		InputSchema: toolbridge.Object([]string{"task_id"}, map[string]*toolbridge.Schema{
			"task_id": toolbridge.Str("The running task to type into, e.g. \"t1\"."),
			"input":   toolbridge.Str("Text to type, sent before the keys."),
			"keys":    toolbridge.Arr("Named keys sent after the text, in order: enter, tab, escape, backspace, up, down, left, right, home, end, ctrl-c, ctrl-d, ctrl-z, ctrl-l, …", toolbridge.Str("A key name.")),
			"wait_ms": toolbridge.Int("How long to collect the output that follows (default 2000; it returns earlier once the output settles).", 0),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in writeStdinInput) (toolbridge.Result, error) {
		table, task, err := taskOf(d, in.TaskID)
		if err != nil {
			return toolbridge.Result{}, err
		}
		if in.Input == "" && len(in.Keys) == 0 {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "give input text, keys, or both, e.g. {\"task_id\": %q, \"input\": \"yes\", \"keys\": [\"enter\"]}; to only read new output use shell_wait", task.ID())
		}
		if !task.Running() {
			res := shellResult(table, task, nil, "")
			return toolbridge.Result{}, &toolbridge.Failure{Code: toolbridge.CodeInvalidInput, Text: fmt.Sprintf("%s has already exited and reads no input; start the command again with shell_run if needed.\n%s", task.ID(), res.Text), Data: res.Data}
		}
		if err := task.Send(in.Input, in.Keys); err != nil {
			if strings.HasPrefix(err.Error(), "unknown key") {
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "%v", err)
			}
			if errors.Is(err, terminal.ErrStdinClosed) || errors.Is(err, terminal.ErrNotRunning) {
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "%s takes no more input (%v); read its output with shell_wait or stop it with shell_cancel", task.ID(), err)
			}
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "could not write to %s: %v; check it with shell_wait, or stop it with shell_cancel", task.ID(), err)
		}
		wait := shellDefaultStdin
		if in.WaitMs != nil {
			wait = time.Duration(*in.WaitMs) * time.Millisecond
		}
		task.WaitQuiet(ctx, min(wait, settings.MaxShellWait), shellStdinQuiet)
		return shellResult(table, task, nil, ""), nil
	})
}

type shellCancelInput struct {
	TaskID string `json:"task_id"`
}

func shellCancelTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "shell_cancel",
		Description: shellCancelDoc,
		Group:       toolbridge.GroupShell,
		InputSchema: toolbridge.Object([]string{"task_id"}, map[string]*toolbridge.Schema{
			"task_id": toolbridge.Str("The task to stop, e.g. \"t1\"."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in shellCancelInput) (toolbridge.Result, error) {
		table, task, err := taskOf(d, in.TaskID)
		if err != nil {
			return toolbridge.Result{}, err
		}
		rep := task.Cancel()
		waitCtx, cancel := context.WithTimeout(ctx, shellCancelTimeout)
		defer cancel()
		task.Wait(waitCtx, shellCancelTimeout)
		var head string
		switch {
		case rep.AlreadyExited:
			head = fmt.Sprintf("%s had already exited; nothing was left to stop.", task.ID())
		case rep.Unkillable > 0:
			head = fmt.Sprintf("%s: %d processes survived SIGKILL (they may be stuck in the kernel); tell the user which task it was.", task.ID(), rep.Unkillable)
		case len(rep.Ended) > 0:
			head = fmt.Sprintf("%s had already finished; ended %s it had left running (%s) with %s.", task.ID(), processCount(len(rep.Ended), "the process", "the %d processes"), processList(rep.Ended), rep.Took)
		case rep.Took == "SIGINT":
			head = fmt.Sprintf("Stopped %s: SIGINT (like ctrl-c) was enough.", task.ID())
		default:
			head = fmt.Sprintf("Stopped %s: it ignored the gentler signals and needed %s.", task.ID(), rep.Took)
		}
		res := shellResult(table, task, nil, head)
		if sd, ok := res.Data.(shellData); ok {
			sd.Cancel = &rep
			res.Data = sd
		}
		return res, nil
	})
}

// terminals returns the task table or explains that shell tools are off.
func terminals(d *Deps) (*terminal.Table, error) {
	if d.Terminals == nil {
		return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "shell tools are not available in this session; use the file and search tools instead, or ask the user to run the command")
	}
	return d.Terminals, nil
}

// shellDir resolves cwd to a folder inside a workspace root.
func shellDir(d *Deps, cwd string) (string, error) {
	if d.Workspace == nil {
		return "", toolbridge.Fail(toolbridge.CodeNotConfigured, "no workspace folder is open, so there is nowhere to run commands; ask the user to open a folder")
	}
	if strings.TrimSpace(cwd) == "" {
		cwd = "."
	}
	t, err := d.Resolve(cwd, workspace.Write)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(t.Abs)
	if err != nil {
		return "", toolbridge.Fail(toolbridge.CodeNotFound, "cwd %s does not exist; create it first or run from the workspace root (leave cwd out)", excerpt.Text(cwd))
	}
	if !fi.IsDir() {
		return "", toolbridge.Fail(toolbridge.CodeInvalidInput, "cwd %s is a file, not a folder; give its folder instead", excerpt.Text(cwd))
	}
	return t.Abs, nil
}

// startFailure turns a Table.Start error into a Failure.
func startFailure(table *terminal.Table, err error) error {
	var tooLong *terminal.CommandTooLongError
	switch {
	case errors.As(err, &tooLong) && tooLong.Limit > 0:
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "the command is %d bytes, more than a command may be (%d bytes, the kernel's limit for one program argument); write it to a script file with `write` and run that, e.g. {\"command\": \"bash script.sh\"}", tooLong.Bytes, tooLong.Limit)
	case errors.As(err, &tooLong):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "the command is %d bytes, more than the system passes to a program along with the environment; write it to a script file with `write` and run that, e.g. {\"command\": \"bash script.sh\"}", tooLong.Bytes)
	case errors.Is(err, terminal.ErrTooManyTasks):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "%v; wait for one to finish with shell_wait or stop one with shell_cancel, then run the command again", err)
	case errors.Is(err, terminal.ErrGate):
		return toolbridge.Fail(toolbridge.CodeDenied, "%v; do not try to run it another way — ask the user", err)
	case errors.Is(err, terminal.ErrClosed):
		return toolbridge.Fail(toolbridge.CodeNotConfigured, "the server is shutting down and starts no more commands; try again after it restarts")
	}
	return toolbridge.Fail(toolbridge.CodeNotConfigured, "the command could not be started (%v); check that the shell.program setting names a shell that accepts -c, or ask the user", err)
}

// findTask looks a task up, or fails with task_not_found naming the tasks
// there are.
// taskOf finds a task of the session's table, or says why it cannot.
func taskOf(d *Deps, id string) (*terminal.Table, *terminal.Task, error) {
	table, err := terminals(d)
	if err != nil {
		return nil, nil, err
	}
	task, err := findTask(table, id)
	return table, task, err
}

func findTask(table *terminal.Table, id string) (*terminal.Task, error) {
	id = strings.TrimSpace(id)
	task, err := table.Get(id)
	if err == nil {
		return task, nil
	}
	var running, finished []string
	for _, st := range table.List() {
		if st.State == "running" {
			running = append(running, fmt.Sprintf("%s (%s)", st.ID, st.Title))
		} else {
			finished = append(finished, st.ID)
		}
	}
	msg := fmt.Sprintf("there is no task %s", excerpt.Quote(id))
	if len(running) == 0 && len(finished) == 0 {
		msg += "; no task is running or kept. Finished tasks are released a few minutes after their output was read: run the command again with shell_run"
	} else {
		if len(running) > 0 {
			msg += "; running: " + strings.Join(running, ", ")
		}
		if len(finished) > 0 {
			msg += "; finished and still kept: " + strings.Join(finished, ", ")
		}
		msg += ". Use one of these ids, or run the command again with shell_run"
	}
	return nil, toolbridge.Fail(toolbridge.CodeTaskNotFound, "%s", msg)
}

// shellResult renders a task's new output and state for the model.
func shellResult(table *terminal.Table, task *terminal.Task, readOnly *bool, head string) toolbridge.Result {
	st := task.Status()
	diag := task.Diagnose()
	head, diag = gateReport(task, head, diag)
	out := task.ReadOutput()
	data := shellData{TaskID: st.ID, Status: st.State, Signal: st.Signal, Canceled: st.Canceled, PTY: st.PTY, ElapsedMs: st.ElapsedMs, Diagnosis: &diag, ReadOnly: readOnly}
	transport := "pipe"
	if st.PTY {
		transport = "pty"
	}
	elapsed := (time.Duration(st.ElapsedMs) * time.Millisecond).Round(100 * time.Millisecond)
	var b strings.Builder
	if head != "" {
		b.WriteString(head)
		b.WriteString("\n")
	}
	if out != "" {
		b.WriteString(out)
		if !strings.HasSuffix(out, "\n") {
			b.WriteString("\n")
		}
	} else {
		b.WriteString("(no new output)\n")
	}
	if st.State == "exited" {
		code := st.ExitCode
		data.ExitCode = &code
		how := fmt.Sprintf("exit code %d", code)
		if st.Signal != "" {
			how = fmt.Sprintf("killed by %s", st.Signal)
		}
		if st.Canceled {
			how += ", canceled"
		}
		if n := len(st.Survivors); n > 0 {
			data.Survivors = st.Survivors
			fmt.Fprintf(&b, "[%s finished: %s · %s · %s; %s it started still %s: %s]\n", st.ID, how, elapsed, transport, processCount(n, "1 process", "%d processes"), pick(n == 1, "runs", "run"), processList(st.Survivors))
			if table.Ephemeral() {
				fmt.Fprintf(&b, "This command-line session ends when this call returns, and %s killed then; run the command in an editor session to keep %s running.", pick(n == 1, "it is", "they are"), pick(n == 1, "it", "them"))
			} else {
				fmt.Fprintf(&b, "%s in the background; stop %s with shell_cancel {\"task_id\": %q} when no longer needed (every process of the task also ends when the server stops).", pick(n == 1, "It keeps running", "They keep running"), pick(n == 1, "it", "them"), st.ID)
			}
		} else {
			fmt.Fprintf(&b, "[%s finished: %s · %s · %s]", st.ID, how, elapsed, transport)
		}
		if diag.Reason != terminal.ReasonExited {
			b.WriteString("\n" + diag.Hint)
		}
	} else {
		fmt.Fprintf(&b, "[%s still running after %s · %s · %s]\n%s", st.ID, elapsed, transport, diag.Reason, diag.Hint)
		if table.Ephemeral() {
			b.WriteString("\nThis command-line session ends when this call returns, and the task is killed then; run it in an editor session to keep it running.")
		} else {
			b.WriteString("\nIt keeps running after this call returns, until it exits, shell_cancel stops it, or the whale-ls server that runs it stops.")
		}
	}
	return toolbridge.Result{Text: b.String(), Data: data}
}

// shownProcesses bounds how many processes a result names.
const shownProcesses = 5

// processList names processes as "PID COMMAND", comma-separated, the first
// few only.
func processList(ps []terminal.Process) string {
	var names []string
	for i, p := range ps {
		if i == shownProcesses {
			names = append(names, fmt.Sprintf("and %d more", len(ps)-i))
			break
		}
		names = append(names, fmt.Sprintf("%d %s", p.PID, p.Command))
	}
	return strings.Join(names, ", ")
}

// processCount is one when n is 1, else many with n filled in.
func processCount(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, n)
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

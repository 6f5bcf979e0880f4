package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/shellcmd"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed shell_run.md
var shellRunDoc string

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

// Shell is what shell_run needs: the task table (nil: no shell tools), the
// workspace its commands run in, the exec boundary (nil: none) and the
// shell.* settings.
type Shell struct {
	Terminals *terminal.Table
	Workspace *workspace.Set
	Gate      *execboundary.Gate
	Settings  func() settings.Settings
	// Journal records what each task changed in the workspace; nil: not
	// journaled.
	Journal *changes.Journal
	// Notifier, when set, is told of every journaled task.
	Notifier toolbridge.Notifier
	// SandboxState remembers the sandbox's probe and the policy results
	// described; nil: probed at every start, described in every first
	// result.
	SandboxState *SandboxState
	// sandboxTemp, set by tests only, replaces the sandbox's temp folders
	// (so that a test's folders under /tmp can be outside the allowed ones).
	sandboxTemp []string
}

// ShellRun is shell_run: a command in a pipe or a PTY, shown as an editor
// terminal, waited for until it ends, yields or goes to the background.
func ShellRun(sh Shell) toolbridge.Tool {
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
		table, err := terminals(sh.Terminals)
		if err != nil {
			return toolbridge.Result{}, err
		}
		command := strings.TrimSpace(in.Command)
		if command == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "command is empty; give the command line to run, e.g. {\"command\": \"go test ./...\"}")
		}
		dir, err := shellDir(sh.Workspace, in.Cwd)
		if err != nil {
			return toolbridge.Result{}, err
		}
		cfg := sh.Settings() // the table has the shell.* part already: the session applies it on each change
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
		box, unconfined, err := sh.sandboxFor(cfg, env)
		if err != nil {
			return toolbridge.Result{}, err
		}
		mode := terminal.Mode(in.Mode)
		if mode == "" {
			mode = terminal.ModeAuto
		}
		parsed := shellcmd.ParseLine(command) // the one parse: the classifiers and the gate read it
		readOnly := terminal.IsReadOnly(parsed)
		var cp taskCheckpoint
		if !readOnly {
			cp = sh.checkpoint(ctx)
			if box != nil {
				cp.caches = sandbox.WatchCaches(box.Caches())
			}
		}
		if ctx.Err() != nil {
			cp.caches.Close()
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeCanceled, "the call was canceled before the command started; nothing ran")
		}
		task, err := table.Start(terminal.StartOptions{Command: command, Parsed: parsed, Dir: dir, Mode: mode, Env: env, Cols: in.Cols, Rows: in.Rows, Gate: shellGate(sh.Gate), Sandbox: box})
		if err != nil {
			cp.caches.Close()
			return toolbridge.Result{}, startFailure(table, err)
		}
		sh.noteSandbox(task, box, unconfined)
		sh.journalTask(task, cp, toolbridge.CallID(ctx))
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

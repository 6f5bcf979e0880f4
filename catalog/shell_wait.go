package catalog

import (
	"context"
	_ "embed"
	"time"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed shell_wait.md
var shellWaitDoc string

type shellWaitInput struct {
	TaskID    string `json:"task_id"`
	TimeoutMs *int   `json:"timeout_ms"`
}

// ShellWait is shell_wait: waits for a running task and returns what it
// printed since the last look.
func ShellWait(table *terminal.Table) toolbridge.Tool {
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
		table, task, err := taskOf(table, in.TaskID)
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

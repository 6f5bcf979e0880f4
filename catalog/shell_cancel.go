package catalog

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed shell_cancel.md
var shellCancelDoc string

type shellCancelInput struct {
	TaskID string `json:"task_id"`
}

// ShellCancel is shell_cancel: stops a task and every process it started.
func ShellCancel(table *terminal.Table) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "shell_cancel",
		Description: shellCancelDoc,
		Group:       toolbridge.GroupShell,
		InputSchema: toolbridge.Object([]string{"task_id"}, map[string]*toolbridge.Schema{
			"task_id": toolbridge.Str("The task to stop, e.g. \"t1\"."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in shellCancelInput) (toolbridge.Result, error) {
		table, task, err := taskOf(table, in.TaskID)
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

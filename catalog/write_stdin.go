package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed write_stdin.md
var writeStdinDoc string

type writeStdinInput struct {
	TaskID string   `json:"task_id"`
	Input  string   `json:"input"`
	Keys   []string `json:"keys"`
	WaitMs *int     `json:"wait_ms"`
}

// WriteStdin is write_stdin: text and named keys to a running task's input.
func WriteStdin(table *terminal.Table) toolbridge.Tool {
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
		table, task, err := taskOf(table, in.TaskID)
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

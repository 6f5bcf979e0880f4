package catalog

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// Limits of the shell tools' waits.
const (
	shellDefaultStdin  = 2 * time.Second
	shellStdinQuiet    = 300 * time.Millisecond
	shellCancelTimeout = 30 * time.Second
)

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

// terminals returns the task table or explains that shell tools are off.
func terminals(table *terminal.Table) (*terminal.Table, error) {
	if table == nil {
		return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "shell tools are not available in this session; use the file and search tools instead, or ask the user to run the command")
	}
	return table, nil
}

// shellDir resolves cwd to a folder inside a workspace root.
func shellDir(ws *workspace.Set, cwd string) (string, error) {
	if ws == nil {
		return "", toolbridge.Fail(toolbridge.CodeNotConfigured, "no workspace folder is open, so there is nowhere to run commands; ask the user to open a folder")
	}
	if strings.TrimSpace(cwd) == "" {
		cwd = "."
	}
	t, err := resolve(ws, cwd, workspace.Write)
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

// taskOf finds a task of the session's table, or says why it cannot.
func taskOf(tasks *terminal.Table, id string) (*terminal.Table, *terminal.Task, error) {
	table, err := terminals(tasks)
	if err != nil {
		return nil, nil, err
	}
	task, err := findTask(table, id)
	return table, task, err
}

// findTask looks a task up, or fails with task_not_found naming the tasks
// there are.
func findTask(table *terminal.Table, id string) (*terminal.Task, error) {
	id = strings.TrimSpace(id)
	task, err := table.Get(id)
	if err == nil {
		return task, nil
	}
	var running, finished []string
	for _, st := range table.List() {
		if st.State == terminal.StateRunning {
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
	task.AnnounceWait(diag)
	out := task.ReadOutput()
	head, diag = taskReport(task, out, head, diag)
	data := shellData{TaskID: st.ID, Status: string(st.State), Signal: st.Signal, Canceled: st.Canceled, PTY: st.PTY, ElapsedMs: st.ElapsedMs, Diagnosis: &diag, ReadOnly: readOnly}
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
	if st.State == terminal.StateExited {
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
		if note := journalNote(task); note != "" {
			b.WriteString("\n" + note)
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

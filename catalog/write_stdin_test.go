package catalog

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestWriteStdinAnswersPrompt(t *testing.T) {
	_, r, _ := shellTestDeps(t, terminal.Options{})
	env := call(t, r, "shell_run", map[string]any{"command": `read -p "Continue? [y/N] " a; echo "answer=$a"`, "mode": "pty", "yield_time_ms": 0})
	id := shellDataOf(t, env).TaskID
	waitForDiagnosis(t, r, id, terminal.ReasonWaitingForInput)
	env = call(t, r, "write_stdin", map[string]any{"task_id": id, "input": "y", "keys": []string{"enter"}, "wait_ms": 60000})
	if !env.OK {
		t.Fatalf("write_stdin failed: %+v", env)
	}
	text := env.Text
	if !strings.Contains(text, "answer=y") {
		env = call(t, r, "shell_wait", map[string]any{"task_id": id, "timeout_ms": 180000})
		text += env.Text
	}
	if !strings.Contains(text, "answer=y") {
		t.Errorf("no answer in %q", text)
	}
	// The answer may arrive before the exit: wait for the exit itself.
	if env = call(t, r, "shell_wait", map[string]any{"task_id": id, "timeout_ms": 180000}); shellDataOf(t, env).Status != "exited" {
		t.Fatalf("the task did not exit after its answer: %q", env.Text)
	}
	env = call(t, r, "write_stdin", map[string]any{"task_id": id, "input": "late"})
	if env.OK || env.Code != toolbridge.CodeInvalidInput {
		t.Errorf("write_stdin to an exited task = %+v, want invalid_input", env)
	}
}

package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/terminal"
)

func TestShellYieldThenWait(t *testing.T) {
	_, r, root := shellTestDeps(t, terminal.Options{})
	flag := filepath.Join(root, "go-on")
	env := call(t, r, "shell_run", map[string]any{"command": "echo begin; while [ ! -e go-on ]; do sleep 0.05; done; echo end", "yield_time_ms": 50})
	sd := shellDataOf(t, env)
	if sd.Status != "running" || sd.TaskID == "" || !strings.Contains(env.Text, "shell_wait") {
		t.Fatalf("shell_run = %q (%+v), want a running task with a shell_wait hint", env.Text, sd)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env = call(t, r, "shell_wait", map[string]any{"task_id": sd.TaskID, "timeout_ms": 180000})
	sd = shellDataOf(t, env)
	if sd.Status != "exited" || !strings.Contains(env.Text, "end") {
		t.Errorf("shell_wait = %q (%+v), want the end and the exit", env.Text, sd)
	}
}

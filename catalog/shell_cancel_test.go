package catalog

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestShellCancelAndUnknownTask(t *testing.T) {
	_, r, _ := shellTestDeps(t, terminal.Options{})
	env := call(t, r, "shell_run", map[string]any{"command": "sleep 1000", "background": true})
	sd := shellDataOf(t, env)
	if sd.Status != "running" || !strings.Contains(env.Text, "background") {
		t.Fatalf("background shell_run = %q (%+v)", env.Text, sd)
	}
	env = call(t, r, "shell_cancel", map[string]any{"task_id": sd.TaskID})
	if !env.OK || !strings.Contains(env.Text, "Stopped "+sd.TaskID) || shellDataOf(t, env).Status != "exited" {
		t.Errorf("shell_cancel = %+v", env)
	}
	env = call(t, r, "shell_wait", map[string]any{"task_id": "t42"})
	if env.Code != toolbridge.CodeTaskNotFound || !strings.Contains(env.Text, sd.TaskID) {
		t.Errorf("shell_wait t42 = %+v, want task_not_found naming %s", env, sd.TaskID)
	}
}

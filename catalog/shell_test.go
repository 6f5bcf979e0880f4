package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// shellTestDeps builds a workspace in a temp folder, a task table and a
// registry of the shell tools.
func shellTestDeps(t *testing.T, o terminal.Options) (*testDeps, *toolbridge.Registry, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.NewSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	table := terminal.NewTable(o)
	t.Cleanup(func() { _ = table.Close() })
	d := &testDeps{Workspace: ws, Reads: &ReadLedger{}, Terminals: table}
	d.SetSettings(settings.Settings{})
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(shellTools(d)...); err != nil {
		t.Fatal(err)
	}
	return d, r, root
}

func shellDataOf(t *testing.T, env toolbridge.Envelope) shellData {
	t.Helper()
	sd, ok := env.Data.(shellData)
	if !ok {
		t.Fatalf("envelope data is %T, want shellData; envelope: %+v", env.Data, env)
	}
	return sd
}

// waitForDiagnosis polls shell_wait with short timeouts until the reason
// shows up.
func waitForDiagnosis(t *testing.T, r *toolbridge.Registry, id, reason string) toolbridge.Envelope {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		env := call(t, r, "shell_wait", map[string]any{"task_id": id, "timeout_ms": 100})
		if sd := shellDataOf(t, env); sd.Diagnosis != nil && sd.Diagnosis.Reason == reason {
			return env
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s diagnosis for %s; last: %s", reason, id, env.Text)
		}
	}
}

// runsMarked reports whether pid is alive (not a zombie) and has marker in
// its command line.
func runsMarked(pid int, marker string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(b), marker)
}

func TestShellResultsNameSurvivorsAndCancelEndsThem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("survivors are found through /proc")
	}
	_, r, _ := shellTestDeps(t, terminal.Options{})
	marker := fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%100000)
	env := call(t, r, "shell_run", map[string]any{"command": "sleep " + marker + " >/dev/null 2>&1 & echo started", "yield_time_ms": 60000})
	sd := shellDataOf(t, env)
	deadline := time.Now().Add(3 * time.Minute)
	// The forked subshell shows as bash until it has exec'd the sleep.
	execd := func() bool {
		return len(sd.Survivors) == 1 && strings.HasSuffix(sd.Survivors[0].Command, "sleep "+marker)
	}
	for !execd() && time.Now().Before(deadline) {
		env = call(t, r, "shell_wait", map[string]any{"task_id": sd.TaskID, "timeout_ms": 100})
		sd = shellDataOf(t, env)
	}
	if sd.Status != "exited" || len(sd.Survivors) != 1 || !strings.HasSuffix(sd.Survivors[0].Command, "sleep "+marker) {
		t.Fatalf("shell_wait = %q (%+v), want exited with the sleep still running", env.Text, sd)
	}
	pid := sd.Survivors[0].PID
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil && runsMarked(pid, marker) {
			_ = p.Kill()
		}
	})
	want := fmt.Sprintf("[%s finished: exit code 0 · ", sd.TaskID)
	line := fmt.Sprintf("; 1 process it started still runs: %d sleep %s]", pid, marker)
	if !strings.Contains(env.Text, want) || !strings.Contains(env.Text, line) || !strings.Contains(env.Text, "shell_cancel") {
		t.Errorf("shell_wait text = %q, want %q…%q and how to stop it", env.Text, want, line)
	}
	env = call(t, r, "shell_cancel", map[string]any{"task_id": sd.TaskID})
	head := fmt.Sprintf("%s had already finished; ended the process it had left running (%d sleep %s) with SIG", sd.TaskID, pid, marker)
	if !env.OK || !strings.HasPrefix(env.Text, head) {
		t.Errorf("shell_cancel = %s %q, want it to start %q", env.Code, env.Text, head)
	}
	if cd := shellDataOf(t, env); cd.Cancel == nil || len(cd.Cancel.Ended) != 1 || len(cd.Survivors) != 0 || cd.Canceled {
		t.Errorf("shell_cancel data = %+v, want one process ended, none left, the task not marked canceled", cd)
	}
	if runsMarked(pid, marker) {
		t.Errorf("the sleep %d still runs after shell_cancel", pid)
	}
}

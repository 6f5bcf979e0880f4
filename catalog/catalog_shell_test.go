package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
func shellTestDeps(t *testing.T, o terminal.Options) (*Deps, *toolbridge.Registry, string) {
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
	d := &Deps{Workspace: ws, Reads: &ReadLedger{}, Terminals: table}
	d.SetSettings(settings.Settings{})
	r, err := toolbridge.NewRegistry(nil, shellTools(d))
	if err != nil {
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

func TestShellRunFinishes(t *testing.T) {
	_, r, root := shellTestDeps(t, terminal.Options{})
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := call(t, r, "shell_run", map[string]any{"command": "pwd; echo oops >&2; exit 4", "cwd": "sub"})
	if !env.OK {
		t.Fatalf("shell_run failed: %+v", env)
	}
	sd := shellDataOf(t, env)
	if sd.Status != "exited" || sd.ExitCode == nil || *sd.ExitCode != 4 || sd.PTY {
		t.Errorf("data = %+v, want exited with code 4 over a pipe", sd)
	}
	for _, want := range []string{filepath.Join(root, "sub") + "\n", "oops", "exit code 4"} {
		if !strings.Contains(env.Text, want) {
			t.Errorf("text %q lacks %q", env.Text, want)
		}
	}
}

// TestShellRunEnv: env is a list of names and values; the object form and
// numbers as values are repaired into it, and a bad name is invalid_input.
func TestShellRunEnv(t *testing.T) {
	_, r, _ := shellTestDeps(t, terminal.Options{})
	for _, tc := range []struct {
		name    string
		env     any
		repairs []string
	}{
		{"list", []any{map[string]any{"name": "WHALE_A", "value": "1"}, map[string]any{"name": "WHALE_B", "value": "two"}}, nil},
		{"object", map[string]any{"WHALE_A": "1", "WHALE_B": "two"}, []string{toolbridge.RepairObjectToNameValueList}},
		{"object with a number", map[string]any{"WHALE_A": 1, "WHALE_B": "two"}, []string{toolbridge.RepairObjectToNameValueList, toolbridge.RepairNumberOrBooleanToString}},
		{"list with a number", []any{map[string]any{"name": "WHALE_A", "value": 1}, map[string]any{"name": "WHALE_B", "value": "two"}}, []string{toolbridge.RepairNumberOrBooleanToString}},
	} {
		env := call(t, r, "shell_run", map[string]any{"command": `echo "a=$WHALE_A b=$WHALE_B"`, "env": tc.env})
		if !env.OK || !strings.Contains(env.Text, "a=1 b=two") || !slices.Equal(env.Repairs, tc.repairs) {
			t.Errorf("shell_run with env %s = %s %q, repairs %v; want a=1 b=two, repairs %v", tc.name, env.Code, env.Text, env.Repairs, tc.repairs)
		}
	}
	env := call(t, r, "shell_run", map[string]any{"command": "true", "env": []any{map[string]any{"name": "A=B", "value": "x"}}})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, `"name": "GOFLAGS"`) {
		t.Errorf("shell_run with env name A=B = %s %q, want invalid_input with the list form", env.Code, env.Text)
	}
	env = call(t, r, "shell_run", map[string]any{"command": "true", "env": []any{map[string]any{"name": "BIG", "value": strings.Repeat("v", 200<<10)}}})
	if runtime.GOOS == "linux" && (env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "env \"BIG\" is 204804 bytes")) {
		t.Errorf("shell_run with a 200 KiB env value = %s %q, want invalid_input naming the variable", env.Code, env.Text)
	}
	env = call(t, r, "shell_run", map[string]any{"command": "true", "env": map[string]any{"A": map[string]any{"x": 1}}})
	if env.Code != toolbridge.CodeInvalidInput || len(env.Repairs) > 0 {
		t.Errorf("shell_run with an object as an env value = %s %q, repairs %v; want invalid_input, no repairs", env.Code, env.Text, env.Repairs)
	}
}

func TestShellRunTTYModes(t *testing.T) {
	_, r, _ := shellTestDeps(t, terminal.Options{})
	for mode, want := range map[string]string{"pty": "/dev/pts/", "pipe": "not a tty"} {
		env := call(t, r, "shell_run", map[string]any{"command": "tty", "mode": mode})
		if !strings.Contains(env.Text, want) {
			t.Errorf("tty in %s mode: %q, want %q", mode, env.Text, want)
		}
	}
}

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

func TestShellRunPasswordPrompt(t *testing.T) {
	_, r, _ := shellTestDeps(t, terminal.Options{})
	env := call(t, r, "shell_run", map[string]any{"command": `read -s -p "Password: " p; echo; echo "len=${#p}"`, "mode": "pty", "yield_time_ms": 0})
	id := shellDataOf(t, env).TaskID
	env = waitForDiagnosis(t, r, id, terminal.ReasonPasswordPrompt)
	if !strings.Contains(env.Text, "user") {
		t.Errorf("password hint %q should say to ask the user", env.Text)
	}
	env = call(t, r, "write_stdin", map[string]any{"task_id": id, "input": "hunter2", "keys": []string{"enter"}, "wait_ms": 60000})
	if strings.Contains(env.Text, "hunter2") {
		t.Errorf("secret echoed: %q", env.Text)
	}
	if !strings.Contains(env.Text, "len=7") {
		env = call(t, r, "shell_wait", map[string]any{"task_id": id, "timeout_ms": 180000})
		if !strings.Contains(env.Text, "len=7") {
			t.Errorf("no len=7 in %q", env.Text)
		}
	}
}

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

func TestShellRunLongRunningYieldsEarly(t *testing.T) {
	_, r, root := shellTestDeps(t, terminal.Options{})
	if err := os.WriteFile(filepath.Join(root, "app.log"), []byte("ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := call(t, r, "shell_run", map[string]any{"command": "tail -f app.log"})
	sd := shellDataOf(t, env)
	if sd.Status != "running" || sd.Diagnosis.Reason != terminal.ReasonLongRunning || !strings.Contains(env.Text, "ready") {
		t.Errorf("shell_run tail -f = %q (%+v), want a long_running task", env.Text, sd)
	}
}

func TestShellRunInputProblems(t *testing.T) {
	_, r, _ := shellTestDeps(t, terminal.Options{})
	env := call(t, r, "shell_run", map[string]any{"command": "true", "cwd": "/"})
	if env.OK || env.Code != toolbridge.CodePathEscapesWorkspace {
		t.Errorf("cwd / = %+v, want path_escapes_workspace", env)
	}
	env = call(t, r, "shell_run", map[string]any{"command": "cat", "background": true})
	id := shellDataOf(t, env).TaskID
	env = call(t, r, "write_stdin", map[string]any{"task_id": id, "keys": []string{"warp-drive"}})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "enter") {
		t.Errorf("unknown key = %+v, want invalid_input listing keys", env)
	}
	env = call(t, r, "write_stdin", map[string]any{"task_id": id, "input": "piped", "keys": []string{"enter", "ctrl-d"}, "wait_ms": 60000})
	seen := env.Text
	// write_stdin returns once the output settles; cat may exit a moment later.
	if shellDataOf(t, env).Status != "exited" {
		env = call(t, r, "shell_wait", map[string]any{"task_id": id, "timeout_ms": 180000})
		seen += env.Text
	}
	if !strings.Contains(seen, "piped") || shellDataOf(t, env).Status != "exited" {
		t.Errorf("cat after ctrl-d = %q, want the echo and the exit", seen)
	}
}

func TestShellRunEphemeralSaysKilled(t *testing.T) {
	_, r, _ := shellTestDeps(t, terminal.Options{Ephemeral: true})
	env := call(t, r, "shell_run", map[string]any{"command": "sleep 1000", "yield_time_ms": 10})
	if !strings.Contains(env.Text, "killed") {
		t.Errorf("ephemeral running result %q should say the task is killed at exit", env.Text)
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

func TestShellRunCommandOverTheArgumentLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the per-argument limit is Linux's")
	}
	_, r, _ := shellTestDeps(t, terminal.Options{})
	command := "echo " + strings.Repeat("x", 200_000)
	env := call(t, r, "shell_run", map[string]any{"command": command})
	want := fmt.Sprintf("the command is %d bytes, more than a command may be (%d bytes", len(command), 32*os.Getpagesize()-1)
	if env.OK || env.Code != toolbridge.CodeInvalidInput || !strings.HasPrefix(env.Text, want) || !strings.Contains(env.Text, "script file with `write`") {
		t.Errorf("shell_run of %d bytes = %s %q, want invalid_input starting %q and naming write", len(command), env.Code, env.Text, want)
	}
	if len(env.Text) > 400 {
		t.Errorf("the answer is %d bytes; it must not echo the command", len(env.Text))
	}
}

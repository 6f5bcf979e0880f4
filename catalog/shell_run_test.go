package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

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

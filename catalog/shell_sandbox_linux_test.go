//go:build linux

package catalog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/internal/probe"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// sandboxedShell is a shell_run with the real exec gate and sandbox over a
// workspace, a temp folder and a folder outside both; cfg is its settings.
func sandboxedShell(t *testing.T, cfg settings.Settings) (run toolbridge.Tool, ws, out string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, tmp, out := filepath.Join(base, "ws"), filepath.Join(base, "tmp"), filepath.Join(base, "out")
	for _, d := range []string{ws, tmp, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := sandbox.Check(sandbox.Policy{Mode: sandbox.WorkspaceWrite}); err != nil {
		if r := probe.Landlock(sandbox.MinABI); r.Present {
			t.Fatalf("the sandbox cannot be applied although the kernel has %s: %v", r.Reason, err)
		}
		t.Skipf("skipped: the sandbox cannot be applied here: %v", err)
	}
	set, err := workspace.NewSet([]string{ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	table := terminal.NewTable(terminal.Options{})
	t.Cleanup(func() { _ = table.Close() })
	gate := execboundary.NewGate(execboundary.Options{Helper: []string{os.Args[0], execboundary.HelperCommand}, Audit: execboundary.NewAuditLog(t.TempDir())})
	if err := gate.Configure("enforce", json.RawMessage(`[]`), 0); err != nil {
		t.Fatal(err)
	}
	sh := Shell{Terminals: table, Workspace: set, Gate: gate, Settings: func() settings.Settings { return cfg }, SandboxState: &SandboxState{}, sandboxTemp: []string{tmp}}
	return ShellRun(sh), ws, out
}

// TestShellRunNamesSandboxRefusals: the first confined result lists where
// the task may write; a refused write is the diagnosis, with the path and
// the way out; nothing was written.
func TestShellRunNamesSandboxRefusals(t *testing.T) {
	var cfg settings.Settings
	tool, ws, out := sandboxedShell(t, cfg)
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(out, "hosts")
	env := call(t, r, "shell_run", map[string]any{"command": "echo ok > inside && echo x > " + target})
	sd := shellDataOf(t, env)
	if sd.Diagnosis == nil || sd.Diagnosis.Reason != ReasonSandboxRefused {
		t.Errorf("diagnosis = %+v, want %s", sd.Diagnosis, ReasonSandboxRefused)
	}
	for _, want := range []string{
		"[sandbox workspace-write: writes only in the workspace (.git included), the temp folders",
		"The sandbox (workspace-write) refused a write to " + target,
		"add the folder to shell.writableRoots",
		"set shell.sandbox to off",
	} {
		if !strings.Contains(env.Text, want) {
			t.Errorf("result %q lacks %q", env.Text, want)
		}
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was written (stat: %v)", target, err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside")); err != nil || string(b) != "ok\n" {
		t.Errorf("the write inside the workspace: %q, %v", b, err)
	}
	env = call(t, r, "shell_run", map[string]any{"command": "echo again > inside2"})
	if strings.Contains(env.Text, "writes only in") {
		t.Errorf("the second result lists the policy again: %q", env.Text)
	}

	// With the folder in shell.writableRoots the write goes through.
	cfg.Shell.WritableRoots = []string{out}
	tool, _, _ = sandboxedShell(t, cfg)
	r = toolbridge.NewRegistry(nil)
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
	env = call(t, r, "shell_run", map[string]any{"command": "echo x > " + filepath.Join(out, "hosts")})
	if sd := shellDataOf(t, env); sd.ExitCode == nil || *sd.ExitCode != 0 || !strings.Contains(env.Text, out+" (shell.writableRoots)") {
		t.Errorf("with shell.writableRoots = [%s]: %q", out, env.Text)
	}
}

// TestSandboxUnavailable: where the sandbox cannot apply, execBoundary.mode
// enforce refuses a command that asks for it, best-effort runs it
// unconfined and says so in every result, and an unset shell.sandbox runs
// it unconfined and says so.
func TestSandboxUnavailable(t *testing.T) {
	gate := execboundary.NewGate(execboundary.Options{Helper: []string{os.Args[0], execboundary.HelperCommand}})
	state := &SandboxState{}
	state.probeOnce.Do(func() { state.probeErr = errors.New("no namespaces here") })
	sh := Shell{Gate: gate, SandboxState: state}
	var cfg settings.Settings
	cfg.Shell.Network = "off"
	for _, tc := range []struct {
		mode, network string
		refused       bool
		note          string
	}{
		{"enforce", "off", true, ""},
		{"best-effort", "off", false, "execBoundary.mode is best-effort, so this command ran unconfined"},
		{"off", "loopback", false, "execBoundary.mode is off, so this command ran unconfined"},
	} {
		if err := gate.Configure(tc.mode, nil, 0); err != nil {
			t.Fatal(err)
		}
		cfg.Shell.Network = tc.network
		p, note, err := sh.sandboxFor(cfg, nil)
		var fail *toolbridge.Failure
		if tc.refused {
			if !errors.As(err, &fail) || fail.Code != toolbridge.CodeDenied || !strings.Contains(fail.Text, "no namespaces here") || !strings.Contains(fail.Text, "execBoundary.mode is enforce") {
				t.Errorf("mode %s: sandboxFor = %v, %q, %v; want denied with the reason", tc.mode, p, note, err)
			}
			continue
		}
		if err != nil || p != nil || !strings.Contains(note, tc.note) || !strings.Contains(note, "no namespaces here") {
			t.Errorf("mode %s: sandboxFor = %v, %q, %v; want unconfined with %q", tc.mode, p, note, err, tc.note)
		}
	}
}

// TestShellRunReportsCacheChanges: a confined task may write the
// toolchains' caches, and what it did there is in its result: an entry it
// rewrote named with its path, the entries it added counted; a task that
// only reads them says nothing of caches.
func TestShellRunReportsCacheChanges(t *testing.T) {
	tool, _, out := sandboxedShell(t, settings.Settings{})
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(out, "cache")
	entry := filepath.Join(cache, "tool", "entry")
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, []byte("built\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []map[string]string{{"name": "HOME", "value": filepath.Join(out, "home")}, {"name": "XDG_CACHE_HOME", "value": cache}}
	res := call(t, r, "shell_run", map[string]any{"command": "cat " + entry + " > inside && echo read", "env": env})
	if !res.OK || strings.Contains(res.Text, "while the task ran") {
		t.Errorf("a task that only read the cache: %s %q, want no word of caches", res.Code, res.Text)
	}
	res = call(t, r, "shell_run", map[string]any{"command": "echo poisoned > " + entry + " && echo new > " + filepath.Join(cache, "tool", "new1") + " && echo new > " + filepath.Join(cache, "new2"), "env": env})
	for _, want := range []string{
		"[while the task ran, entries already in toolchain caches outside the workspace were rewritten — the user cache folder (pip, yarn, pnpm and others): 1 entry (" + entry + "). Builds outside the sandbox trust these entries",
		"[caches while the task ran: user cache folder (pip, yarn, pnpm and others) 2 new]",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("result %q lacks %q", res.Text, want)
		}
	}
}

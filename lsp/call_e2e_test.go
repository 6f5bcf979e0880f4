package lsp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// callEnvelope is the --json output of `whale-ls call`, with the "via"
// that the command adds to the data.
type callEnvelope struct {
	OK   bool   `json:"ok"`
	Code string `json:"code"`
	Text string `json:"text"`
	Data struct {
		Via struct {
			Mode   string `json:"mode"`
			Why    string `json:"why"`
			Server *struct {
				PID  int    `json:"pid"`
				Root string `json:"root"`
			} `json:"server"`
		} `json:"via"`
	} `json:"data"`
}

// runCall runs `whale-ls call` in dir with XDG_RUNTIME_DIR runtimeDir.
func runCall(t *testing.T, dir, runtimeDir string, args ...string) (callEnvelope, string) {
	t.Helper()
	cmd := exec.Command(whaleBinary(t), append([]string{"call"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir, "XDG_STATE_HOME="+runtimeDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if _, exit := errors.AsType[*exec.ExitError](err); err != nil && !exit {
		t.Fatalf("whale-ls call %q: %v", args, err)
	}
	var env callEnvelope
	if slices.Contains(args, "--json") {
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatalf("whale-ls call %q printed %q (stderr %q): %v", args, out, stderr.String(), err)
		}
	}
	return env, string(out)
}

// TestCallAttachedEditLandsInTheEditor: with a language server running for
// the folder, `whale-ls call` runs in it: an edit of a file open in the
// editor lands in the buffer (workspace/applyEdit at the buffer's version),
// not on disk, and the result says attached; --standalone runs in the
// process (on disk), as do --config and a folder the server does not have
// first.
func TestCallAttachedEditLandsInTheEditor(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.go": "package a // disk\n", "b.txt": "one\n", "sub/c.txt": "three\n"})
	runtimeDir := t.TempDir()
	s := start(t, root, sessionOptions{runtimeDir: runtimeDir})
	u := s.open("a.go", "package a\n\nvar x = 1 // unsaved\n", 5)

	env, _ := runCall(t, root, runtimeDir, "--json", "edit", `{"file_path":"a.go","search":"var x = 1","replace":"var x = 2"}`)
	if !env.OK || env.Data.Via.Mode != "attached" || env.Data.Via.Server == nil || env.Data.Via.Server.PID != s.cmd.Process.Pid {
		t.Fatalf("attached edit = %+v; want ok, via attached to pid %d", env, s.cmd.Process.Pid)
	}
	if got, v := s.ed.text(u); got != "package a\n\nvar x = 2 // unsaved\n" || v != 6 {
		t.Fatalf("editor buffer = %q version %d, want the edit applied at version 5", got, v)
	}
	if b, _ := os.ReadFile(s.path("a.go")); string(b) != "package a // disk\n" {
		t.Errorf("disk changed to %q; the edit belongs in the buffer", b)
	}

	// The human form says so too; a read sees the buffer, not the disk.
	_, out := runCall(t, root, runtimeDir, "read_file", `{"file_path":"a.go"}`)
	if !strings.Contains(out, "var x = 2 // unsaved") || !strings.Contains(out, "[attached: ran in the whale-ls language server of") {
		t.Errorf("attached read_file printed %q; want the buffer's text and the attached line", out)
	}

	// --standalone: this process, on disk, and no attached line.
	env, out = runCall(t, root, runtimeDir, "--standalone", "--json", "edit", `{"file_path":"b.txt","search":"one","replace":"two"}`)
	if !env.OK || env.Data.Via.Mode != "standalone" || env.Data.Via.Why != "--standalone" {
		t.Errorf("--standalone edit = %+v (%s); want ok, via standalone", env, out)
	}
	if b, _ := os.ReadFile(s.path("b.txt")); string(b) != "two\n" {
		t.Errorf("standalone edit left %q on disk", b)
	}
	_, out = runCall(t, root, runtimeDir, "--standalone", "read_file", `{"file_path":"a.go"}`)
	if !strings.Contains(out, "package a // disk") || strings.Contains(out, "attached") {
		t.Errorf("--standalone read_file printed %q; want the disk's text and no attached line", out)
	}

	// A settings file is for a session of this process.
	cfg := filepath.Join(t.TempDir(), "cfg.json")
	os.WriteFile(cfg, []byte(`{"shell":{"yieldTimeMs":500}}`), 0o644)
	env, _ = runCall(t, root, runtimeDir, "--config", cfg, "--json", "read_file", `{"file_path":"b.txt"}`)
	if env.Data.Via.Mode != "standalone" || !strings.HasPrefix(env.Data.Via.Why, "--config") {
		t.Errorf("call --config = %+v; want standalone because of --config", env)
	}

	// A subfolder: relative paths would mean another file in the server.
	env, _ = runCall(t, filepath.Join(root, "sub"), runtimeDir, "--json", "read_file", `{"file_path":"c.txt"}`)
	if !env.OK || env.Data.Via.Mode != "standalone" || !strings.Contains(env.Text, "three") {
		t.Errorf("call in a subfolder = %+v; want it standalone, reading sub/c.txt", env)
	}
}

// TestCallWithoutServerRunsStandalone: no language server for the folder:
// the call runs in the process and says why.
func TestCallWithoutServerRunsStandalone(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "alpha\n"})
	env, out := runCall(t, root, t.TempDir(), "--json", "edit", `{"file_path":"a.txt","search":"alpha","replace":"beta"}`)
	if !env.OK || env.Data.Via.Mode != "standalone" || !strings.Contains(env.Data.Via.Why, "no whale-ls language server is running") {
		t.Errorf("call without a server = %+v (%s); want ok, standalone, saying no server runs", env, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "beta\n" {
		t.Errorf("standalone edit left %q on disk", b)
	}
}

// TestCallAttachedAsksTheEditor: an attached call's exec approval is asked
// in the server's editor (not answered by the command line), and the
// editor's answer decides.
func TestCallAttachedAsksTheEditor(t *testing.T) {
	s, audit := gatedSession(t, nil)
	state := filepath.Dir(filepath.Dir(audit)) // the server's runtime and state folder
	type result struct {
		env callEnvelope
		out string
	}
	done := make(chan result, 1)
	bin := whaleBinary(t)
	go func() {
		cmd := exec.Command(bin, "call", "--json", "shell_run", `{"command":"rm -rf victim; echo rc=$?","yield_time_ms":30000}`)
		cmd.Dir = s.root
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+state, "XDG_STATE_HOME="+state)
		out, _ := cmd.Output()
		var env callEnvelope
		json.Unmarshal(out, &env)
		done <- result{env, string(out)}
	}()
	answerNextPrompt(t, s, 1, "deny")
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the attached call did not return after the editor's answer")
	}
	if r.env.Data.Via.Mode != "attached" || !strings.Contains(r.env.Text, "rc=126") {
		t.Errorf("attached shell_run = %s; want it attached, rm refused (rc=126)", r.out)
	}
	if _, err := os.Stat(s.path("victim/keep.txt")); err != nil {
		t.Errorf("the victim is gone although the editor said deny: %v", err)
	}
}

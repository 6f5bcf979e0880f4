package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupCommand runs `whale-ls setup` as a user would: flags, the
// project folder, the record in XDG_STATE_HOME, the exit codes.
func TestSetupCommand(t *testing.T) {
	base := t.TempDir()
	home, root := filepath.Join(base, "home"), filepath.Join(base, "project")
	for _, d := range []string{home, root} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"setup"}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	if code, out, _ := run("--list"); code != exitOK || !strings.Contains(out, "opencode — opencode") {
		t.Errorf("--list: %d\n%s", code, out)
	}
	if code, _, errOut := run("vim", "--root", root); code != exitUsage || !strings.Contains(errOut, "unknown host") {
		t.Errorf("setup vim: %d %s", code, errOut)
	}
	if code, _, errOut := run("claude", "--scope", "team", "--root", root); code != exitUsage || !strings.Contains(errOut, "--scope") {
		t.Errorf("--scope team: %d %s", code, errOut)
	}
	if code, _, _ := run(); code != exitUsage {
		t.Errorf("setup without a host: %d", code)
	}

	// Dry run: the file and its content, nothing written.
	code, out, errOut := run("opencode", "--root", root, "--dry-run", "--command", "/opt/whale/whale-ls")
	if code != exitOK || !strings.Contains(out, filepath.Join(root, "opencode.json")+" (new content)") || !strings.Contains(out, `"/opt/whale/whale-ls", "mcp"`) {
		t.Errorf("--dry-run: %d\n%s%s", code, out, errOut)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("--dry-run wrote %v", entries)
	}

	// Setup, then undo (flags after the host, as users type them).
	if code, out, errOut := run("opencode", "--root", root, "--command", "/opt/whale/whale-ls"); code != exitOK || !strings.Contains(out, "created "+filepath.Join(root, "opencode.json")) {
		t.Fatalf("setup: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(base, "state", "whale-ls", "setup")); err != nil {
		t.Errorf("no record under XDG_STATE_HOME: %v", err)
	}
	if code, out, errOut := run("opencode", "--undo", "--root", root); code != exitOK || !strings.Contains(out, "removed") {
		t.Errorf("--undo: %d\n%s%s", code, out, errOut)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("--undo left %v", entries)
	}
	if code, _, errOut := run("opencode", "--undo", "--root", root); code != exitFailure || !strings.Contains(errOut, "nothing to undo") {
		t.Errorf("a second --undo: %d %s", code, errOut)
	}

	// A file that does not parse: exit 1, the file named, left alone.
	bad := filepath.Join(root, "opencode.json")
	os.WriteFile(bad, []byte(`{"mcp": `), 0o644)
	if code, _, errOut := run("opencode", "--root", root); code != exitFailure || !strings.Contains(errOut, bad+" is not valid JSON") {
		t.Errorf("unparseable: %d %s", code, errOut)
	}
	if data, _ := os.ReadFile(bad); string(data) != `{"mcp": ` {
		t.Errorf("the unparseable file became %q", data)
	}

	// User scope writes under HOME.
	if code, out, errOut := run("qwen", "--scope", "user", "--command", "whale-ls"); code != exitOK || !strings.Contains(out, filepath.Join(home, ".qwen", "settings.json")) {
		t.Errorf("--scope user: %d\n%s%s", code, out, errOut)
	}
}

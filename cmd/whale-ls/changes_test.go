package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestChangesAcrossProcesses: an edit by one `whale-ls call` process is
// listed by a later `whale-ls changes list --json` process, its diff shown
// by `changes diff`, and `changes revert` restores the file — each a real
// process of the real binary, meeting only in the journal on disk.
func TestChangesAcrossProcesses(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "whale-ls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	whale := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "XDG_RUNTIME_DIR="+state)
		out, err := cmd.Output()
		return string(out), err
	}
	if out, err := whale("call", "--root", dir, "edit", `{"file_path":"a.txt","search":"two","replace":"deux"}`); err != nil {
		t.Fatalf("call edit: %v\n%s", err, out)
	}
	out, err := whale("changes", "--root", dir, "--json", "list")
	if err != nil {
		t.Fatalf("changes list: %v\n%s", err, out)
	}
	var env struct {
		OK   bool `json:"ok"`
		Data struct {
			Entries []struct {
				ID   string `json:"id"`
				Tool string `json:"tool"`
			} `json:"entries"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil || !env.OK || len(env.Data.Entries) != 1 || env.Data.Entries[0].Tool != "edit" {
		t.Fatalf("changes list --json = %s (%v), want one edit entry", out, err)
	}
	id := env.Data.Entries[0].ID
	if out, err := whale("changes", "--root", dir, "list"); err != nil || !strings.HasPrefix(out, id+"  ") || !strings.HasSuffix(out, "  Edited a.txt (+1 −1)\n") {
		t.Errorf("changes list = %q, %v; want the entry's id, time and title for a person", out, err)
	}
	if out, err := whale("changes", "--root", dir, "diff", id); err != nil || !strings.Contains(out, "-two") || !strings.Contains(out, "+deux") {
		t.Errorf("changes diff = %q, %v; want the edit's diff", out, err)
	}
	if out, err := whale("changes", "--root", dir, "revert", id); err != nil || !strings.Contains(out, "Reverted "+id) {
		t.Errorf("changes revert = %q, %v", out, err)
	}
	if out, err := whale("changes", "--root", dir, "list"); err != nil || !strings.Contains(out, "  Edited a.txt (+1 −1)  (reverted by ") || !strings.Contains(out, "  Reverted a.txt (+1 −1)\n") {
		t.Errorf("changes list after the revert = %q, %v; want the edit marked reverted and the revert titled once", out, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("a.txt after the revert = %q, want it as before the edit", b)
	}
	if out, err := whale("changes", "--root", dir, "revert", "--to", "nope"); err == nil || !strings.Contains(out, "not_found") {
		t.Errorf("changes revert --to an unknown id = %q, %v; want not_found and a failure exit", out, err)
	}
	if _, err := whale("changes", "--root", dir, "frob"); err == nil {
		t.Error("changes frob succeeded, want a usage error")
	}
}

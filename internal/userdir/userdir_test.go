package userdir

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRuntimeNeverInTemp: without XDG_RUNTIME_DIR the runtime folder is
// under the state folder, never in the shared temporary folder that every
// task may write.
func TestRuntimeNeverInTemp(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps both under %LocalAppData%")
	}
	state := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_STATE_HOME", state)
	got, err := Runtime()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(state, "whale-ls", "run"); got != want {
		t.Errorf("Runtime() = %q, want %q", got, want)
	}
	fi, err := os.Stat(got)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("Runtime()'s folder: %v, %v; want mode 0700", fi.Mode(), err)
	}
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	if got, err := Runtime(); err != nil || got != filepath.Join(run, "whale-ls") {
		t.Errorf("Runtime() with XDG_RUNTIME_DIR = %q, %v; want it inside %s", got, err, run)
	}
}

func TestPrivateRefusesSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	base := t.TempDir()
	outside := t.TempDir()
	link := filepath.Join(base, "run")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := Private(link); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Private(symlink) = %v, want a refusal", err)
	}
	dir := filepath.Join(base, "ok")
	if err := Private(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f"), filepath.Join(dir, "f")); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenFile(dir, "f", os.O_RDWR|os.O_CREATE); err == nil {
		f.Close()
		t.Errorf("OpenFile through a symlink succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Errorf("OpenFile created the symlink's target outside")
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Private(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("Private did not tighten %v to 0700", fi.Mode())
	}
}

package terminal

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestInheritedDescriptorsNeverReachTasks opens a writable file the way a
// careless parent leaves one to whale (no close-on-exec), then starts a
// task that writes to that descriptor: after CloseInheritedOnExec the
// write must fail and the file stay empty.
func TestInheritedDescriptorsNeverReachTasks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.txt")
	fd, err := unix.Open(outside, unix.O_WRONLY|unix.O_CREAT, 0o644) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	CloseInheritedOnExec()
	tb := newTable(t, Options{})
	for _, mode := range []Mode{ModePipe, ModePTY} {
		task := start(t, tb, StartOptions{Command: "echo leaked >&" + strconv.Itoa(fd) + " && echo wrote || echo refused", Mode: mode})
		if !task.Wait(t.Context(), 30*time.Second) {
			t.Fatalf("mode %s: the task did not finish", mode)
		}
	}
	if b, err := os.ReadFile(outside); err != nil || len(b) != 0 {
		t.Errorf("the file behind the inherited descriptor holds %q (%v), want nothing", b, err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		t.Errorf("the descriptor is no longer usable in the process itself: %v", err)
	}
}

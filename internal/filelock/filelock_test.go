package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestExcludes holds a lock through one open and waits for it through
// another, as two whale processes would.
func TestExcludes(t *testing.T) {
	if !Supported {
		t.Skip("no file locks on this system")
	}
	path := filepath.Join(tempDir(t), "lock")
	held, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if f, err := Open(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		if f != nil {
			Close(f)
		}
		t.Fatalf("Open while held = %v, want the context's deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		f, err := Open(context.Background(), path)
		if err == nil {
			Close(f)
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := Close(held); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("Open after Close = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock after it was released")
	}
}

// TestLockAndUnlock locks a file whole, as the journal does with its own.
func TestLockAndUnlock(t *testing.T) {
	if !Supported {
		t.Skip("no file locks on this system")
	}
	path := filepath.Join(tempDir(t), "journal.lock")
	a, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if busy, err := tryLock(b); err != nil || !busy {
		t.Fatalf("tryLock of a second open while locked = %v, %v; want busy", busy, err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if busy, err := tryLock(b); err != nil || busy {
		t.Fatalf("tryLock after Unlock = %v, %v; want the lock", busy, err)
	}
}

// TestLockWithinNamesTheHolder has flock(1) — another process, as a task
// would be — hold the lock: the bounded wait must end and name it.
func TestLockWithinNamesTheHolder(t *testing.T) {
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock(1) is not installed (util-linux)")
	}
	path := filepath.Join(tempDir(t), "lock")
	holder := exec.Command(flock, path, "sleep", "60")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	// Wait until flock(1) has it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		f, err := OpenWithin(context.Background(), path, 10*time.Millisecond)
		if err != nil {
			break
		}
		Close(f)
		if time.Now().After(deadline) {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	_, err = OpenWithin(context.Background(), path, 300*time.Millisecond)
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("OpenWithin while flock(1) holds it = %v, want a *HeldError", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("the bounded wait took %v", time.Since(start))
	}
	if runtime.GOOS == "linux" && (len(held.Holders) == 0 || !strings.Contains(held.Error(), fmt.Sprint(holder.Process.Pid))) {
		t.Errorf("HeldError = %q, want it to name pid %d", held.Error(), holder.Process.Pid)
	}
}

// tempDir is t.TempDir whose removal may fail: Wine cannot delete files
// the way Go's RemoveAll does on Windows, which says nothing of the locks.
func tempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "filelock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

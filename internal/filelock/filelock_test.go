package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestExcludes holds a lock through one open and waits for it through
// another, as two whale processes would.
func TestExcludes(t *testing.T) {
	if !Supported {
		t.Skip("no file locks on this system")
	}
	path := filepath.Join(t.TempDir(), "lock")
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
	path := filepath.Join(t.TempDir(), "journal.lock")
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

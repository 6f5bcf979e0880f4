package attach

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTaskProcessIsRefused connects from a child of this process — as a
// program inside one of the server's tasks would — and must be refused
// with whale/refused (sent at once, before any request), while this
// process itself is served.
func TestTaskProcessIsRefused(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: it is the child that connects")
	}
	dir, root := t.TempDir(), t.TempDir()
	l, err := Listen([]string{root}, echoService{}, ListenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var sock string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSocket != 0 {
			sock = p
		}
		return nil
	})
	if sock == "" {
		t.Fatal("no socket in the attach folder")
	}
	out, err := exec.Command(python, "-c", `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(10)
try:
    print(s.makefile().readline())
except OSError as e:
    print("no answer:", e)
`, sock).CombinedOutput()
	if err != nil {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "whale/refused") || !strings.Contains(string(out), "shell tasks") {
		t.Errorf("a child process was answered %q, want whale/refused", out)
	}
	c, err := Dial(ctx(t), root, dir)
	if err != nil {
		t.Fatalf("this process (not a child) was refused: %v", err)
	}
	c.Close()
	if !descendantOf(os.Getpid(), 1) {
		t.Errorf("descendantOf(self, 1) = false, want true")
	}
}

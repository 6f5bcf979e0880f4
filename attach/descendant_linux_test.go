package attach

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
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

// TestPlantedDiscoveryIsRefused: a discovery file that names a socket whose
// process is not the pid the file gives (a fake server someone planted) is
// not attached to.
func TestPlantedDiscoveryIsRefused(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	sock := filepath.Join(dir, "fake.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// It answers whale/tools as a server would.
			go func() {
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var req struct {
						ID json.RawMessage `json:"id"`
					}
					if json.Unmarshal(sc.Bytes(), &req) == nil && req.ID != nil {
						fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`+"\n", req.ID)
					}
				}
			}()
		}
	}()
	real, _ := filepath.EvalSymlinks(root)
	d := Discovery{PID: 1, Socket: sock, Root: real, UID: os.Getuid()}
	b, _ := json.Marshal(d)
	if err := os.WriteFile(filepath.Join(dir, Key(real)+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx(t), root, dir)
	if err == nil {
		c.Close()
		t.Fatal("attached to a socket whose process is not the discovery file's pid")
	}
}

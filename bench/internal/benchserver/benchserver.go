// Package benchserver runs a real whale-ls language server over stdio for
// the bench commands: it builds the binary when none is given, starts it
// in a workspace folder and initializes it. It measures nothing itself.
package benchserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Binary returns bin, or builds whale-ls (run from inside the module) into
// dir when bin is empty.
func Binary(bin, dir string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	bin = filepath.Join(dir, "whale-ls")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/whale-ls/whale-ls/cmd/whale-ls").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v\n%s", err, out)
	}
	return bin, nil
}

// Setup makes a temporary folder (prefix names it) holding an empty
// workspace folder, and the binary (bin, or whale-ls built there). cleanup
// removes the folder.
func Setup(prefix, bin string) (dir, ws, binary string, cleanup func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	ws = filepath.Join(dir, "ws")
	if err = os.Mkdir(ws, 0o755); err == nil {
		binary, err = Binary(bin, dir)
	}
	if err != nil {
		cleanup()
		return "", "", "", nil, err
	}
	return dir, ws, binary, cleanup, nil
}

// Server is a running, initialized whale-ls.
type Server struct {
	Conn jsonrpc2.Conn
	cmd  *exec.Cmd
}

type stdio struct {
	io.Reader
	io.WriteCloser
}

// Start runs `bin serve args…` in the folder ws with env added to the
// environment (nil keeps it as it is), stderr to stderr, and initializes it
// with ws as its root. Requests from the server are answered "method not
// found".
func Start(bin, ws string, args, env []string, stderr io.Writer) (*Server, error) {
	return StartEditor(bin, ws, args, env, stderr, Editor{})
}

// Editor is the editor a bench plays: what it declares in initialize and
// how it answers the server's requests.
type Editor struct {
	// Whale is capabilities.experimental.whale (nil: none declared).
	Whale map[string]any
	// InitOptions are the initializationOptions (whale's settings).
	InitOptions any
	// Handler answers requests from the server; nil answers "method not
	// found".
	Handler jsonrpc2.Handler
}

// StartEditor is Start for a server that talks to the editor ed.
func StartEditor(bin, ws string, args, env []string, stderr io.Writer, ed Editor) (*Server, error) {
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Dir = ws
	if env != nil {
		cmd.Env = append(cmd.Environ(), env...)
	}
	cmd.Stderr = stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(stdio{out, in}))
	handler := ed.Handler
	if handler == nil {
		handler = jsonrpc2.MethodNotFoundHandler
	}
	conn.Go(context.Background(), handler)
	s := &Server{Conn: conn, cmd: cmd}
	caps := map[string]any{}
	if ed.Whale != nil {
		caps["experimental"] = map[string]any{"whale": ed.Whale}
	}
	ctx := context.Background()
	params := map[string]any{"capabilities": caps, "rootUri": "file://" + ws}
	if ed.InitOptions != nil {
		params["initializationOptions"] = ed.InitOptions
	}
	if _, err := conn.Call(ctx, "initialize", params, nil); err != nil {
		s.Close()
		return nil, err
	}
	conn.Notify(ctx, "initialized", map[string]any{})
	return s, nil
}

// Close shuts the server down in order (so that it can write a profile),
// killing it when it has not exited within 10 s.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.Conn.Call(ctx, "shutdown", nil, nil)
	s.Conn.Notify(ctx, "exit", nil)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		s.cmd.Process.Kill()
		<-done
	}
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// CPU returns the processor time the server has used so far (user and
// system), read from /proc; ok is false where there is none. It swings far
// less with the machine's load than wall-clock time does.
func (s *Server) CPU() (cpu time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond, true
}

// LoadAvg returns the machine's 1, 5 and 15 minute load averages, for a
// bench to print beside its figures.
func LoadAvg() string {
	raw, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(raw))
	return strings.Join(f[:min(3, len(f))], " ")
}

// GoSrc is the Go toolchain's source tree, the benchmarks' shared corpus:
// `go env GOROOT`/src of the go command on PATH.
func GoSrc() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

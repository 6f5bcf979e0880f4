package lsp_test

// The lifetime of the fronts (issue 13, "Lifetime"), checked from outside:
// the real binary over real pipes. The clock starts when stdin is closed or
// the signal is sent and stops when the process is reaped; a task's
// processes are found in /proc by a unique argument, not by asking the
// server.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The bounds the issue sets, from the event to the process's exit.
const (
	clientGoneBound = time.Second     // stdin closed, stdout closed
	signalBound     = 2 * time.Second // SIGTERM, SIGINT
)

// sleepMarker is a `sleep` argument that no other process has.
func sleepMarker() string { return fmt.Sprintf("1000.%09d", rand.IntN(1e9)) }

// markedPIDs lists the processes whose command line contains marker: the
// sleep itself, and the shell and supervisor that run it.
func markedPIDs(marker string) []string {
	entries, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(marker)) {
			pids = append(pids, fmt.Sprintf("%s (%s)", e.Name(), bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '})))
		}
	}
	return pids
}

// waitSleeping waits until `sleep marker` itself runs (not only the shell
// that is about to start it).
func waitSleeping(t *testing.T, marker string) {
	t.Helper()
	waitFor(t, "the task's sleep "+marker, func() bool {
		for _, p := range markedPIDs(marker) {
			if strings.HasSuffix(p, "sleep "+marker+")") && !strings.Contains(p, "-c") {
				return true
			}
		}
		return false
	})
}

// wantMarkedGone fails when a process with marker is still there.
func wantMarkedGone(t *testing.T, marker string) {
	t.Helper()
	if pids := markedPIDs(marker); len(pids) > 0 {
		t.Errorf("after whale-ls exited, the task's processes are still there: %v", pids)
	}
}

// whaleProc is a whale-ls process with pipes for stdin and stdout and a file
// for stderr (no copying goroutines, so its exit is the process's own).
type whaleProc struct {
	t        *testing.T
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      io.ReadCloser
	stderr   *os.File
	exited   chan struct{}
	exitedAt time.Time
}

func launch(t *testing.T, dir string, env []string, args ...string) *whaleProc {
	t.Helper()
	cmd := exec.Command(whaleBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &whaleProc{t: t, cmd: cmd, in: in, out: out, stderr: stderr, exited: make(chan struct{})}
	go func() {
		cmd.Process.Wait()
		p.exitedAt = time.Now()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
		in.Close()
		out.Close()
		if t.Failed() {
			b, _ := os.ReadFile(stderr.Name())
			t.Logf("whale-ls %s stderr:\n%s", strings.Join(args, " "), b)
		}
	})
	return p
}

// exitAfter runs stop and returns how long the process took to exit from
// the moment stop began.
func (p *whaleProc) exitAfter(stop func()) time.Duration {
	p.t.Helper()
	start := time.Now()
	stop()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.t.Fatalf("whale-ls still runs 30 s later")
	}
	return p.exitedAt.Sub(start)
}

// waitStderr waits until the process has written line to its stderr (up
// to 30 s).
func (p *whaleProc) waitStderr(line string) {
	p.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(p.stderr.Name()); bytes.Contains(b, []byte(line+"\n")) {
			return
		}
	}
	p.t.Fatalf("whale-ls has not written %q to stderr 30 s after it started", line)
}

func (p *whaleProc) signal(sig syscall.Signal) func() {
	return func() { p.cmd.Process.Signal(sig) }
}

// lspConn drives the language-server front of p frame by frame.
func lspConn(p *whaleProc) *rawConn {
	return &rawConn{t: p.t, cmd: p.cmd, in: p.in, out: bufio.NewReader(p.out)}
}

// mcpConn drives an MCP front as newline-delimited JSON.
type mcpConn struct {
	t   *testing.T
	p   *whaleProc
	out *bufio.Reader
}

func (c *mcpConn) send(body string) {
	c.t.Helper()
	if _, err := io.WriteString(c.p.in, body+"\n"); err != nil {
		c.t.Fatalf("write to whale-ls mcp: %v", err)
	}
}

// response reads messages until the response with id arrives.
func (c *mcpConn) response(id string) message {
	c.t.Helper()
	type res struct {
		m   message
		err error
	}
	ch := make(chan res, 1)
	go func() {
		for {
			line, err := c.out.ReadBytes('\n')
			if err != nil {
				ch <- res{err: err}
				return
			}
			var m message
			if err := json.Unmarshal(line, &m); err != nil {
				ch <- res{err: fmt.Errorf("%w in %q", err, line)}
				return
			}
			if string(m.ID) == id && m.Method == "" {
				ch <- res{m: m}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			c.t.Fatalf("reading from whale-ls mcp: %v", r.err)
		}
		return r.m
	case <-time.After(60 * time.Second):
		c.t.Fatalf("no response %s from whale-ls mcp", id)
	}
	return message{}
}

// initialize runs the MCP handshake and returns the server's instructions.
func (c *mcpConn) initialize() string {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lifetime-test","version":"1"}}}`)
	m := c.response("1")
	if m.Error != nil {
		c.t.Fatalf("MCP initialize: %+v", m.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	var r struct {
		Instructions string `json:"instructions"`
	}
	json.Unmarshal(m.Result, &r)
	return r.Instructions
}

func launchMCP(t *testing.T, root, runtimeDir string, args ...string) *mcpConn {
	p := launch(t, root, []string{"XDG_RUNTIME_DIR=" + runtimeDir, "XDG_STATE_HOME=" + runtimeDir}, append([]string{"mcp", "--root", root}, args...)...)
	return &mcpConn{t: t, p: p, out: bufio.NewReader(p.out)}
}

// The ways a session ends, with the bound on the time to exit.
type ending struct {
	name  string
	bound time.Duration
	// stop ends the session; request sends a request that the server
	// answers (the stdout case needs a write to notice).
	stop func(p *whaleProc, request func()) func()
}

var endings = []ending{
	{"stdin closed", clientGoneBound, func(p *whaleProc, _ func()) func() { return func() { p.in.Close() } }},
	{"stdout closed", clientGoneBound, func(p *whaleProc, request func()) func() {
		// The server sees a closed stdout only when it writes: the clock
		// starts when a request it answers is sent.
		p.out.Close()
		return request
	}},
	{"SIGTERM", signalBound, func(p *whaleProc, _ func()) func() { return p.signal(syscall.SIGTERM) }},
	{"SIGINT", signalBound, func(p *whaleProc, _ func()) func() { return p.signal(syscall.SIGINT) }},
}

// TestLifetimeLSP: with a foreground shell_run in flight, the language
// server exits within the bound when its client goes away or it is told to
// stop, and the task's processes are gone.
func TestLifetimeLSP(t *testing.T) {
	for _, end := range endings {
		t.Run(end.name, func(t *testing.T) {
			p := launch(t, writeFiles(t, nil), []string{"XDG_RUNTIME_DIR=" + t.TempDir()})
			c := lspConn(p)
			c.initialize()
			marker := sleepMarker()
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"whale.shell_run","arguments":[%s]}}`, sleepInput(marker)))
			waitSleeping(t, marker)
			took := p.exitAfter(end.stop(p, func() { c.send(`{"jsonrpc":"2.0","id":3,"method":"whale/tools","params":{}}`) }))
			t.Logf("%s: whale-ls exited after %v", end.name, took)
			if took > end.bound {
				t.Errorf("%s with a call in flight: whale-ls exited after %v, want at most %v", end.name, took, end.bound)
			}
			wantMarkedGone(t, marker)
		})
	}
}

// sleepInput is the input of a foreground shell_run of `sleep marker`
// that waits far longer than any test.
func sleepInput(marker string) string {
	return fmt.Sprintf(`{"command":"sleep %s","yield_time_ms":600000}`, marker)
}

// mcpSleeping starts a standalone `whale-ls mcp` with a foreground
// shell_run of `sleep MARKER` in flight (request id 2).
func mcpSleeping(t *testing.T) (*mcpConn, string) {
	t.Helper()
	c := launchMCP(t, writeFiles(t, nil), t.TempDir(), "--standalone")
	c.initialize()
	marker := sleepMarker()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shell_run","arguments":%s}}`, sleepInput(marker)))
	waitSleeping(t, marker)
	return c, marker
}

// TestLifetimeMCPStandalone: the same for `whale-ls mcp` on its own.
func TestLifetimeMCPStandalone(t *testing.T) {
	for _, end := range endings {
		t.Run(end.name, func(t *testing.T) {
			c, marker := mcpSleeping(t)
			took := c.p.exitAfter(end.stop(c.p, func() { c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`) }))
			t.Logf("%s: whale-ls mcp exited after %v", end.name, took)
			if took > end.bound {
				t.Errorf("%s with a call in flight: whale-ls mcp exited after %v, want at most %v", end.name, took, end.bound)
			}
			wantMarkedGone(t, marker)
		})
	}
}

// TestLifetimeMCPStandaloneCancel: notifications/cancelled cancels the
// call: a foreground shell_run gets no response (MCP's rule for a
// cancelled request) and its task keeps running for shell_wait.
func TestLifetimeMCPStandaloneCancel(t *testing.T) {
	c, marker := mcpSleeping(t)
	c.cancelWithoutResponse("2")
	if len(markedPIDs(marker)) == 0 {
		t.Errorf("canceling the call ended its task; it should keep running in the background")
	}
}

// TestLifetimeMCPAttached: `whale-ls mcp` attached to a running language
// server exits within the bound when its client goes away or it is told to
// stop, and the call it was running in the server is canceled there (the
// server withdraws the call's question). A call its client cancels is
// canceled in the server too, and gets no response. Tasks an attached call started belong to the
// server's session, which shows them in the editor; they end with it.
func TestLifetimeMCPAttached(t *testing.T) {
	for _, end := range append(endings, ending{name: "notifications/cancelled"}) {
		t.Run(end.name, func(t *testing.T) {
			root := writeFiles(t, nil)
			runtimeDir := t.TempDir()
			s := start(t, root, sessionOptions{runtimeDir: runtimeDir, experimental: map[string]any{"whale": map[string]any{"prompts": true}}})
			c := launchMCP(t, root, runtimeDir)
			if in := c.initialize(); !strings.Contains(in, "attached") {
				t.Fatalf("instructions %q: not attached to the running server", in)
			}
			c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_ask","arguments":{"title":"held"}}}`)
			waitFor(t, "the attached call's question in the editor", func() bool { return len(s.ed.prompts()) == 1 })
			promptID := s.ed.prompts()[0]["promptId"].(string)
			if end.stop == nil {
				c.cancelWithoutResponse("2")
			} else {
				took := c.p.exitAfter(end.stop(c.p, func() { c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`) }))
				t.Logf("%s: whale-ls mcp exited after %v", end.name, took)
				if took > end.bound {
					t.Errorf("%s with an attached call in flight: whale-ls mcp exited after %v, want at most %v", end.name, took, end.bound)
				}
			}
			waitFor(t, "the server's log of the canceled call", func() bool {
				return strings.Contains(s.stderrText(), `msg="attached call canceled" tool=test_ask`)
			})
			_, err := s.conn.Call(ctxT(t), "whale/prompt/answer", map[string]any{"promptId": promptID, "optionId": "deny"}, nil)
			if err == nil || !strings.Contains(err.Error(), "no longer open") {
				t.Errorf("answering the canceled call's question = %v, want that it is no longer open", err)
			}
		})
	}
}

// TestLifetimeCall: `whale-ls call shell_run` in the foreground, stopped
// by a signal, exits within the bound, answers canceled and leaves no
// process of the task.
func TestLifetimeCall(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			root := writeFiles(t, nil)
			marker := sleepMarker()
			// The input comes on stdin, so that whale-ls's own command line
			// does not carry the marker.
			p := launch(t, root, []string{"XDG_RUNTIME_DIR=" + t.TempDir()}, "call", "--root", root, "shell_run", "-")
			io.WriteString(p.in, sleepInput(marker))
			p.in.Close()
			waitSleeping(t, marker)
			out := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(p.out)
				out <- b
			}()
			took := p.exitAfter(p.signal(sig))
			t.Logf("%v: whale-ls call exited after %v", sig, took)
			if took > signalBound {
				t.Errorf("%v with a foreground shell_run: whale-ls call exited after %v, want at most %v", sig, took, signalBound)
			}
			wantMarkedGone(t, marker)
			if b := <-out; !bytes.HasPrefix(b, []byte("canceled: ")) {
				t.Errorf("whale-ls call printed %q, want a canceled answer", b)
			}
		})
	}
}

// TestLifetimeStuckTool: a tool that ignores cancellation does not keep a
// front alive: each exits within the bound with the tool still running.
func TestLifetimeStuckTool(t *testing.T) {
	const stuck = `{"ms":600000}`
	env := func() []string { return []string{"WHALE_LS_TEST_TOOLS=1", "XDG_RUNTIME_DIR=" + t.TempDir()} }
	for _, end := range []ending{endings[0], endings[2]} {
		t.Run("LSP "+end.name, func(t *testing.T) {
			p := launch(t, writeFiles(t, nil), env())
			c := lspConn(p)
			c.initialize()
			c.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"whale.test_stuck","arguments":[` + stuck + `]}}`)
			c.send(`{"jsonrpc":"2.0","id":3,"method":"whale/tools","params":{}}`)
			c.response("3") // the stuck call has started by now
			took := p.exitAfter(end.stop(p, nil))
			t.Logf("%s: whale-ls exited after %v", end.name, took)
			if took > end.bound {
				t.Errorf("%s with a stuck tool: whale-ls exited after %v, want at most %v", end.name, took, end.bound)
			}
		})
		t.Run("MCP "+end.name, func(t *testing.T) {
			root := writeFiles(t, nil)
			p := launch(t, root, env(), "mcp", "--standalone", "--root", root)
			c := &mcpConn{t: t, p: p, out: bufio.NewReader(p.out)}
			c.initialize()
			c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_stuck","arguments":` + stuck + `}}`)
			c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`)
			c.response("3")
			took := p.exitAfter(end.stop(p, nil))
			t.Logf("%s: whale-ls mcp exited after %v", end.name, took)
			if took > end.bound {
				t.Errorf("%s with a stuck tool: whale-ls mcp exited after %v, want at most %v", end.name, took, end.bound)
			}
		})
	}
	t.Run("call SIGTERM", func(t *testing.T) {
		root := writeFiles(t, nil)
		p := launch(t, root, env(), "call", "--root", root, "test_stuck", stuck)
		out := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(p.out)
			out <- b
		}()
		p.waitStderr("test_stuck: started") // a SIGTERM before whale-ls handles it would end it unannounced
		took := p.exitAfter(p.signal(syscall.SIGTERM))
		t.Logf("SIGTERM: whale-ls call exited after %v", took)
		if took > signalBound {
			t.Errorf("SIGTERM with a stuck tool: whale-ls call exited after %v, want at most %v", took, signalBound)
		}
		if b := <-out; !bytes.HasPrefix(b, []byte("canceled: whale-ls was stopped")) {
			t.Errorf("whale-ls call printed %q, want that it was stopped", b)
		}
	})
}

// TestLifetimeStubbornTask: a task that ignores SIGTERM is killed all the
// same, within the bound.
func TestLifetimeStubbornTask(t *testing.T) {
	for _, end := range []ending{endings[0], endings[2]} {
		t.Run(end.name, func(t *testing.T) {
			p := launch(t, writeFiles(t, nil), []string{"XDG_RUNTIME_DIR=" + t.TempDir()})
			c := lspConn(p)
			c.initialize()
			marker := sleepMarker()
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"whale.shell_run","arguments":[{"command":"trap '' TERM INT HUP; sleep %s","yield_time_ms":600000}]}}`, marker))
			waitSleeping(t, marker)
			took := p.exitAfter(end.stop(p, nil))
			t.Logf("%s: whale-ls exited after %v", end.name, took)
			if took > end.bound {
				t.Errorf("%s with a task that ignores SIGTERM: whale-ls exited after %v, want at most %v", end.name, took, end.bound)
			}
			wantMarkedGone(t, marker)
		})
	}
}

package lsp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawConn talks to whale-ls frame by frame, for what a well-behaved client
// library cannot send: broken frames, garbage, chosen ids.
type rawConn struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRaw(t *testing.T, root string) *rawConn {
	t.Helper()
	cmd := exec.Command(whaleBinary(t))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "WHALE_LS_TEST_TOOLS=1", "XDG_RUNTIME_DIR="+t.TempDir())
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr lockedWriter
	stderr.w = &strings.Builder{}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawConn{t: t, cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.w)
		}
	})
	return c
}

func (c *rawConn) send(body string) {
	c.t.Helper()
	c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

func (c *rawConn) write(raw string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, raw); err != nil {
		c.t.Fatalf("write to whale-ls: %v", err)
	}
}

// message is a decoded server message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next reads the next message, failing the test after a generous deadline.
func (c *rawConn) next() message {
	c.t.Helper()
	type res struct {
		m   message
		err error
	}
	ch := make(chan res, 1)
	go func() {
		length := -1
		for {
			line, err := c.out.ReadString('\n')
			if err != nil {
				ch <- res{err: err}
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(c.out, body); err != nil {
			ch <- res{err: err}
			return
		}
		var m message
		err := json.Unmarshal(body, &m)
		ch <- res{m, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			c.t.Fatalf("reading from whale-ls: %v", r.err)
		}
		return r.m
	case <-time.After(60 * time.Second):
		c.t.Fatalf("no message from whale-ls")
	}
	return message{}
}

// response reads messages until the response with id arrives.
func (c *rawConn) response(id string) message {
	c.t.Helper()
	for {
		m := c.next()
		if string(m.ID) == id && m.Method == "" {
			return m
		}
	}
}

func (c *rawConn) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	if m := c.response("1"); m.Error != nil {
		c.t.Fatalf("initialize: %+v", m.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
}

// TestCancelRequestReachesTheTool sends $/cancelRequest for a chosen id and
// checks the tool saw the cancellation: the answer is Envelope canceled.
func TestCancelRequestReachesTheTool(t *testing.T) {
	c := startRaw(t, writeFiles(t, nil))
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":"long","method":"workspace/executeCommand","params":{"command":"whale.test_wait","arguments":[{"ms":600000}]}}`)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"whale.test_wait","arguments":[{"ms":1}]}}`)
	if m := c.response("7"); !strings.Contains(string(m.Result), "waited 1 ms") {
		t.Fatalf("a short call behind a long one = %s; requests must run concurrently", m.Result)
	}
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"long"}}`)
	m := c.response(`"long"`)
	var env struct {
		Code string `json:"code"`
	}
	json.Unmarshal(m.Result, &env)
	if env.Code != "canceled" {
		t.Fatalf("canceled call answered %s, want Envelope code canceled", m.Result)
	}
}

// TestBadInputKeepsTheServerUp throws malformed frames, invalid JSON, an
// oversized message and unknown methods at the server, then checks it still
// answers.
func TestBadInputKeepsTheServerUp(t *testing.T) {
	c := startRaw(t, writeFiles(t, map[string]string{"a.txt": "alive\n"}))
	c.initialize()

	c.send(`{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`)
	if m := c.response("2"); m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("unknown method = %+v, want MethodNotFound", m)
	}
	c.send(`{not json at all`)
	if m := c.next(); m.Error == nil || m.Error.Code != -32700 {
		t.Errorf("invalid JSON = %+v, want a parse error", m)
	}
	c.send(`{"jsonrpc":"2.0","id":3}`)
	if m := c.next(); m.Error == nil {
		t.Errorf("a message without method = %+v, want an error", m)
	}
	c.write("Garbage-Header-Without-Colon\r\n\r\n")
	c.write("X-Other: 1\r\n\r\n") // a header block without Content-Length
	big := 65 << 20
	c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n", big))
	chunk := strings.Repeat(" ", 1<<20)
	for i := 0; i < big/len(chunk); i++ {
		c.write(chunk)
	}
	c.write(strings.Repeat(" ", big%len(chunk)))
	if m := c.next(); m.Error == nil || !strings.Contains(m.Error.Message, "exceeds the server's limit") {
		t.Errorf("oversized message = %+v, want an error naming the limit", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":"wrong shape"}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"weird":true}}}`)
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///not/open","version":2},"contentChanges":[{"text":"x"}]}}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"whale.read_file","arguments":[{"file_path":"a.txt"}]}}`)
	if m := c.response("4"); !strings.Contains(string(m.Result), "alive") {
		t.Fatalf("after bad input the server answered %s, want the file", m.Result)
	}
}

func TestRequestsBeforeInitialize(t *testing.T) {
	c := startRaw(t, writeFiles(t, nil))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"whale.list_dir","arguments":[{}]}}`)
	if m := c.response("1"); m.Error == nil || m.Error.Code != -32002 {
		t.Fatalf("a request before initialize = %+v, want ServerNotInitialized", m)
	}
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	if m := c.response("2"); m.Error == nil {
		t.Fatalf("a second initialize was accepted")
	}
}

// backgroundTask starts command as a background shell task (id 2) on a
// fresh raw connection and returns the connection and the task's id.
func backgroundTask(t *testing.T, command, mode string) (*rawConn, string) {
	t.Helper()
	c := startRaw(t, writeFiles(t, nil))
	c.initialize()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"whale.shell_run","arguments":[{"command":%q,"mode":%q,"background":true}]}}`, command, mode))
	m := c.response("2")
	var env struct {
		OK   bool `json:"ok"`
		Data struct {
			TaskID string `json:"task_id"`
		} `json:"data"`
	}
	if json.Unmarshal(m.Result, &env); !env.OK || env.Data.TaskID == "" {
		t.Fatalf("shell_run = %s", m.Result)
	}
	return c, env.Data.TaskID
}

// TestTerminalInputKeepsWireOrder pipelines many whale/terminal/input
// requests without waiting for answers: the process must receive them in
// the order they were sent.
func TestTerminalInputKeepsWireOrder(t *testing.T) {
	c, taskID := backgroundTask(t, "head -n 60", "pipe")
	var want strings.Builder
	for i := 0; i < 60; i++ {
		line := fmt.Sprintf("line-%02d", i)
		want.WriteString(line + "\n")
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"whale/terminal/input","params":{"taskId":%q,"data":%q}}`, 100+i, taskID, line+"\n"))
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"whale.shell_wait","arguments":[{"task_id":%q,"timeout_ms":30000}]}}`, taskID))
	m := c.response("3")
	var wait struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Result, &wait)
	if !strings.Contains(wait.Text, want.String()) {
		t.Fatalf("the task received its input out of order:\n%s", wait.Text)
	}
}

// TestTerminalResizeKeepsWireOrder pipelines whale/terminal/resize requests
// and then input without waiting for answers: the PTY must have the last
// size by the time the input arrives (an editor resizes and types at once).
func TestTerminalResizeKeepsWireOrder(t *testing.T) {
	c, taskID := backgroundTask(t, "read x; stty size", "pty")
	for i := range 40 {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"whale/terminal/resize","params":{"taskId":%q,"cols":80,"rows":%d}}`, 100+i, taskID, 47-i))
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"whale/terminal/input","params":{"taskId":%q,"data":"\r"}}`, taskID))
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"whale.shell_wait","arguments":[{"task_id":%q,"timeout_ms":30000}]}}`, taskID))
	m := c.response("4")
	var wait struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Result, &wait)
	if !strings.Contains(wait.Text, "8 80") {
		t.Fatalf("the PTY's size after 40 resizes ending at 8 rows:\n%s", wait.Text)
	}
}

package acpfront

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/internal/probe"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
)

func TestMain(m *testing.M) {
	// The test binary is also the exec gate's helper and the fake agent.
	if len(os.Args) > 1 && os.Args[1] == execboundary.HelperCommand {
		os.Exit(execboundary.RunHelper(os.Args[2:], sandbox.Apply))
	}
	if os.Getenv("ACPFRONT_TEST_AGENT") == "1" {
		runFakeAgent(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// editor is the test's side of the proxy: it sends requests and records
// every message the proxy writes, answering session/request_permission
// with permissionAnswer.
type editor struct {
	t      *testing.T
	w      io.WriteCloser
	proxy  *Proxy
	sess   *session.Session
	root   string
	served chan error

	mu       sync.Mutex
	seq      int
	messages []message
	lines    []string
	waiters  map[string]chan *message
	// permissionAnswer is the optionId the editor picks ("" cancels).
	permissionAnswer string
	permissionIDs    []string
	// buffers, when not nil, are the editor's own files by path: it
	// answers fs/read_text_file and fs/write_text_file from them and
	// records each request in fsCalls ("read PATH", "write PATH").
	buffers map[string]string
	fsCalls []string
}

// startProxy runs a proxy in front of the fake agent on a new workspace
// with the settings cfg (JSON, may be "").
func startProxy(t *testing.T, cfg string) *editor {
	t.Helper()
	return startProxyWith(t, cfg, nil)
}

// startProxyWith is startProxy with the proxy's Attach option.
func startProxyWith(t *testing.T, cfg string, attachTo func(root string) Attached) *editor {
	t.Helper()
	return startProxyOpts(t, cfg, func(o *Options) { o.Attach = attachTo })
}

// startProxyOpts is startProxy with options set by with.
func startProxyOpts(t *testing.T, cfg string, with func(*Options)) *editor {
	t.Helper()
	root := t.TempDir()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_RUNTIME_DIR", state)
	t.Setenv("ACPFRONT_TEST_AGENT", "1")
	var s settings.Settings
	if cfg != "" {
		var err error
		if s, _, err = settings.Parse([]byte(cfg)); err != nil {
			t.Fatal(err)
		}
	}
	e := &editor{t: t, root: root, served: make(chan error, 1), waiters: map[string]chan *message{}, permissionAnswer: "allow_once"}
	var p *Proxy
	o := Options{Agent: []string{os.Args[0]},
		MCPServer: func(root string) *MCPServer {
			return &MCPServer{Name: "whale", Command: "/bin/whale-ls", Args: []string{"mcp", "--root", root}, Env: []EnvVar{}}
		},
		OpenSession: func(r string) (*session.Session, error) {
			if r != root {
				t.Errorf("the session opened in %s, want the session/new cwd %s", r, root)
			}
			sess, err := session.New(session.Options{Roots: []string{r}, Prompter: p.Prompter(), Terminal: terminal.Options{Sink: p.TerminalSink()}, Settings: s})
			e.sess = sess
			return sess, err
		}}
	if with != nil {
		with(&o)
	}
	p = New(o)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e.w, e.proxy = inW, p
	go func() {
		e.served <- p.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	go e.read(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-e.served:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not stop within 10 s of the editor's input ending")
		}
		p.Close()
		if t.Failed() {
			t.Logf("messages the editor got:\n%s", strings.Join(e.lines, "\n"))
		}
	})
	return e
}

func (e *editor) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			e.t.Errorf("the proxy wrote a line that is not JSON: %q", sc.Text())
			continue
		}
		e.mu.Lock()
		e.messages = append(e.messages, m)
		e.lines = append(e.lines, sc.Text())
		ch := e.waiters[idKey(m.ID)]
		answer := e.permissionAnswer
		if m.Method == "session/request_permission" {
			e.permissionIDs = append(e.permissionIDs, idKey(m.ID))
		}
		e.mu.Unlock()
		switch {
		case m.isResponse() && ch != nil:
			ch <- &m
		case m.Method == "fs/read_text_file" || m.Method == "fs/write_text_file":
			e.serveFile(m)
		case m.Method == "session/request_permission":
			outcome := map[string]any{"outcome": "cancelled"}
			if answer != "" {
				outcome = map[string]any{"outcome": "selected", "optionId": answer}
			}
			e.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"outcome": outcome}})
		}
	}
}

// serveFile answers an fs request from the editor's buffers.
func (e *editor) serveFile(m message) {
	var in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	_ = json.Unmarshal(m.Params, &in)
	e.mu.Lock()
	var reply map[string]any
	switch {
	case e.buffers == nil:
		reply = map[string]any{"error": map[string]any{"code": -32601, "message": "method not found"}}
	case m.Method == "fs/write_text_file":
		e.fsCalls = append(e.fsCalls, "write "+in.Path)
		e.buffers[in.Path] = in.Content
		reply = map[string]any{"result": map[string]any{}}
	default:
		e.fsCalls = append(e.fsCalls, "read "+in.Path)
		if text, ok := e.buffers[in.Path]; ok {
			reply = map[string]any{"result": map[string]any{"content": text}}
		} else {
			reply = map[string]any{"error": map[string]any{"code": -32002, "message": "not found"}}
		}
	}
	e.mu.Unlock()
	reply["jsonrpc"], reply["id"] = "2.0", m.ID
	e.send(reply)
}

func (e *editor) send(v any) {
	b, _ := json.Marshal(v)
	if _, err := e.w.Write(append(b, '\n')); err != nil {
		e.t.Errorf("write to the proxy: %v", err)
	}
}

// request sends a request and waits for its response.
func (e *editor) request(method string, params any) *message {
	e.t.Helper()
	e.mu.Lock()
	e.seq++
	id := json.RawMessage(strconv.Itoa(e.seq))
	ch := make(chan *message, 1)
	e.waiters[idKey(id)] = ch
	e.mu.Unlock()
	e.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case m := <-ch:
		return m
	case <-time.After(30 * time.Second):
		e.t.Fatalf("no answer to %s within 30 s", method)
		return nil
	}
}

// open initializes and opens session s1.
func (e *editor) open() (initResult, newResult *message) {
	e.t.Helper()
	initResult = e.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false}}})
	newResult = e.request("session/new", map[string]any{"cwd": e.root, "mcpServers": []any{}})
	return initResult, newResult
}

// prompt runs one turn of steps and returns the agent's chunks of it.
func (e *editor) prompt(steps ...map[string]any) (*message, []string) {
	e.t.Helper()
	text, _ := json.Marshal(steps)
	e.mu.Lock()
	from := len(e.messages)
	e.mu.Unlock()
	r := e.request("session/prompt", map[string]any{"sessionId": "s1", "prompt": []any{map[string]any{"type": "text", "text": string(text)}}})
	return r, e.chunksSince(from)
}

// chunksSince returns the texts of the agent_message_chunk updates got
// since message index from.
func (e *editor) chunksSince(from int) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, m := range e.messages[from:] {
		if u := updateOf(m); u["sessionUpdate"] == "agent_message_chunk" {
			c, _ := u["content"].(map[string]any)
			out = append(out, fmt.Sprint(c["text"]))
		}
	}
	return out
}

// updates returns the session/update payloads the editor got.
func (e *editor) updates() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []map[string]any
	for _, m := range e.messages {
		if u := updateOf(m); u != nil {
			out = append(out, u)
		}
	}
	return out
}

// journalTitles returns the titles of the session's journal entries,
// newest first.
func (e *editor) journalTitles() []string {
	e.t.Helper()
	entries, _, err := e.sess.Journal.List("", 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var titles []string
	for _, en := range entries {
		titles = append(titles, e.sess.Journal.Title(en))
	}
	return titles
}

// diffsOf returns the diffs of path to newText the editor was shown (the
// first content of a session/update).
func (e *editor) diffsOf(path, newText string) []map[string]any {
	var out []map[string]any
	for _, u := range e.updates() {
		if content, _ := u["content"].([]any); len(content) > 0 {
			if d, _ := content[0].(map[string]any); d["type"] == "diff" && d["path"] == path && d["newText"] == newText {
				out = append(out, d)
			}
		}
	}
	return out
}

func updateOf(m message) map[string]any {
	if m.Method != "session/update" {
		return nil
	}
	var p struct {
		Update map[string]any `json:"update"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Update
}

func req(method string, params map[string]any) map[string]any {
	params["sessionId"] = "s1"
	return map[string]any{"method": method, "params": params}
}

func TestInitializeAdvertisesWhaleAndPassesTheAgentOn(t *testing.T) {
	e := startProxy(t, "")
	ini, sn := e.open()
	var r struct {
		AgentCapabilities map[string]any `json:"agentCapabilities"`
		AuthMethods       []any          `json:"authMethods"`
		AgentInfo         map[string]any `json:"agentInfo"`
		Meta              struct {
			Caps struct {
				FS       map[string]bool `json:"fs"`
				Terminal bool            `json:"terminal"`
			} `json:"clientCapabilities"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(ini.Result, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Meta.Caps.FS["readTextFile"] || !r.Meta.Caps.FS["writeTextFile"] || !r.Meta.Caps.Terminal {
		t.Errorf("the agent got clientCapabilities %+v, want fs read/write and terminal", r.Meta.Caps)
	}
	if r.AgentCapabilities["loadSession"] != true || len(r.AuthMethods) != 1 || r.AgentInfo["title"] != "Fake Agent" {
		t.Errorf("the editor got %s, want the agent's capabilities, auth methods and info", ini.Result)
	}
	if !strings.Contains(string(sn.Result), `"command":"/bin/whale-ls","args":["mcp","--root",`+strconv.Quote(e.root)) {
		t.Errorf("session/new reached the agent with %s, want whale's MCP server added", sn.Result)
	}
}

func TestNotificationsPassInOrder(t *testing.T) {
	e := startProxy(t, "")
	e.open()
	r, chunks := e.prompt(map[string]any{"notify": 200})
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	if len(chunks) != 200 {
		t.Fatalf("got %d chunks before the prompt's answer, want 200", len(chunks))
	}
	for i, c := range chunks {
		if c != strconv.Itoa(i) {
			t.Fatalf("chunk %d = %q, want %q (out of order)", i, c, strconv.Itoa(i))
		}
	}
}

func TestAgentRequestIDInUseIsMapped(t *testing.T) {
	var buf strings.Builder
	var agentOut strings.Builder
	p := New(Options{})
	p.editor, p.agent = newPeer(&buf), newPeer(&agentOut)
	// whale's own question to the editor holds the id "x".
	own := &outgoing{reply: make(chan *message, 1)}
	p.toEditor[`"x"`] = own
	line := []byte(`{"jsonrpc":"2.0","id":"x","method":"session/request_permission","params":{}}`)
	m, _ := parse(line, p.agent)
	p.forwardAgentRequest(m, line)
	p.editor.flush()
	var sent message
	if err := json.Unmarshal([]byte(buf.String()), &sent); err != nil {
		t.Fatal(err)
	}
	if idKey(sent.ID) == `"x"` {
		t.Fatalf("the agent's request went to the editor with the id whale's own request holds: %s", buf.String())
	}
	// The editor answers both; each answer reaches its asker with its id.
	p.editorResponse(&message{ID: sent.ID, Result: json.RawMessage(`{}`)}, []byte(`{"jsonrpc":"2.0","id":`+string(sent.ID)+`,"result":{}}`))
	p.editorResponse(&message{ID: json.RawMessage(`"x"`), Result: json.RawMessage(`{}`)}, []byte(`{"jsonrpc":"2.0","id":"x","result":{}}`))
	p.agent.flush()
	if !strings.Contains(agentOut.String(), `"id":"x"`) {
		t.Errorf("the agent got %q, want its answer under its own id \"x\"", agentOut.String())
	}
	select {
	case <-own.reply:
	default:
		t.Error("whale's own request got no answer")
	}
}

func TestReadLinesAndLimit(t *testing.T) {
	e := startProxy(t, "")
	e.open()
	path := filepath.Join(e.root, "a.txt")
	os.WriteFile(path, []byte("one\ntwo\nthree\nfour\n"), 0o644)
	_, chunks := e.prompt(
		req("fs/read_text_file", map[string]any{"path": path, "line": 2, "limit": 2}),
		req("fs/read_text_file", map[string]any{"path": filepath.Join(e.root, "..", "outside.txt")}),
	)
	if len(chunks) != 2 || chunks[0] != `ok {"content":"two\nthree\n"}` {
		t.Fatalf("chunks = %q, want lines 2-3", chunks)
	}
	if !strings.HasPrefix(chunks[1], "error ") {
		t.Errorf("a read outside the workspace answered %q, want an error", chunks[1])
	}
}

func TestStaleWriteIsMergedOrRefused(t *testing.T) {
	e := startProxy(t, "")
	e.open()
	path := filepath.Join(e.root, "a.txt")
	os.WriteFile(path, []byte("\ufeffone\r\ntwo\r\nthree\r\n"), 0o644)
	e.prompt(req("fs/read_text_file", map[string]any{"path": path}))
	// Someone else changes line 3 after the agent read the file.
	os.WriteFile(path, []byte("\ufeffone\r\ntwo\r\nTHREE\r\n"), 0o644)
	_, chunks := e.prompt(req("fs/write_text_file", map[string]any{"path": path, "content": "ONE\ntwo\nthree\n"}))
	if len(chunks) != 1 || !strings.HasPrefix(chunks[0], "ok") {
		t.Fatalf("the merged write answered %q", chunks)
	}
	got, _ := os.ReadFile(path)
	if want := "\ufeffONE\r\ntwo\r\nTHREE\r\n"; string(got) != want {
		t.Errorf("after the merged write the file holds %q, want %q (both changes, BOM and CRLF kept)", got, want)
	}
	// Now someone changes the line the agent changes too.
	os.WriteFile(path, []byte("\ufeffuno\r\ntwo\r\nTHREE\r\n"), 0o644)
	_, chunks = e.prompt(req("fs/write_text_file", map[string]any{"path": path, "content": "Eins\ntwo\nthree\n"}))
	if len(chunks) != 1 || !strings.Contains(chunks[0], "read the file again") {
		t.Fatalf("the conflicting write answered %q, want an error telling the agent to read the file again", chunks)
	}
	got, _ = os.ReadFile(path)
	if want := "\ufeffuno\r\ntwo\r\nTHREE\r\n"; string(got) != want {
		t.Errorf("after the refused write the file holds %q, want it untouched", got)
	}
	if titles, want := e.journalTitles(), []string{"Fake Agent edited a.txt (+1 −1)"}; !slices.Equal(titles, want) {
		t.Errorf("journal titles %q, want %q: the agent's merged write", titles, want)
	}
	if diffs := e.diffsOf(path, "ONE\ntwo\nTHREE\n"); len(diffs) != 1 {
		t.Errorf("the editor got %d diffs of the write, want 1", len(diffs))
	}
}

func TestWriteDiffGoesToTheAgentsEditCall(t *testing.T) {
	e := startProxy(t, "")
	e.open()
	path := filepath.Join(e.root, "new.txt")
	e.prompt(map[string]any{"toolCall": "call-7", "kind": "edit"}, req("fs/write_text_file", map[string]any{"path": path, "content": "hello\n"}))
	for _, u := range e.updates() {
		if u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == "call-7" {
			return
		}
	}
	t.Errorf("no tool_call_update of the agent's edit call call-7 with the write's diff")
}

// With edits.review "ask", a write is shown to the editor as a
// session/request_permission with the diff first: accepted, it is written;
// rejected, the file stays and the agent hears why.
func TestWriteReviewAskedInTheEditor(t *testing.T) {
	e := startProxy(t, `{"edits": {"review": "ask"}}`)
	e.open()
	path := filepath.Join(e.root, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	e.mu.Lock()
	e.permissionAnswer = "accept"
	e.mu.Unlock()
	_, chunks := e.prompt(req("fs/write_text_file", map[string]any{"path": path, "content": "two\n"}))
	if len(chunks) != 1 || chunks[0] != "ok {}" {
		t.Fatalf("the accepted write answered %q", chunks)
	}
	if got, _ := os.ReadFile(path); string(got) != "two\n" {
		t.Errorf("after the accepted review the file holds %q", got)
	}
	e.mu.Lock()
	e.permissionAnswer = "reject"
	asked := len(e.permissionIDs)
	var question map[string]any
	for _, m := range e.messages {
		if m.Method == "session/request_permission" {
			json.Unmarshal(m.Params, &question)
		}
	}
	e.mu.Unlock()
	if asked != 1 || !strings.Contains(fmt.Sprint(question["toolCall"]), "newText:two") {
		t.Errorf("the editor was asked %d times, last %v; want one question with the diff", asked, question)
	}
	_, chunks = e.prompt(req("fs/write_text_file", map[string]any{"path": path, "content": "three\n"}))
	if len(chunks) != 1 || !strings.HasPrefix(chunks[0], "error ") {
		t.Fatalf("the rejected write answered %q, want an error", chunks)
	}
	if got, _ := os.ReadFile(path); string(got) != "two\n" {
		t.Errorf("after the rejected review the file holds %q", got)
	}
}

// needGate skips unless the exec boundary can watch programs here.
func needGate(t *testing.T) {
	probe.Need(t, probe.SeccompUserNotif())
}

func TestTerminalDeniedAndAllowed(t *testing.T) {
	needGate(t)
	e := startProxy(t, `{"execBoundary": {"mode": "enforce", "rules": [{"program": "rm", "decision": "deny"}]}}`)
	e.open()
	victim := filepath.Join(e.root, "keep.txt")
	os.WriteFile(victim, []byte("x"), 0o644)
	_, chunks := e.prompt(
		req("terminal/create", map[string]any{"command": "rm", "args": []string{victim}}),
		req("terminal/create", map[string]any{"command": "echo hello; exit 3", "outputByteLimit": 4}),
		req("terminal/wait_for_exit", map[string]any{"terminalId": "t1"}),
		req("terminal/output", map[string]any{"terminalId": "t1"}),
		req("terminal/release", map[string]any{"terminalId": "t1"}),
		req("terminal/output", map[string]any{"terminalId": "t1"}),
	)
	if len(chunks) != 6 {
		t.Fatalf("chunks = %q", chunks)
	}
	if !strings.Contains(chunks[0], "exec boundary refuses") {
		t.Errorf("terminal/create of a denied program answered %q, want a refusal", chunks[0])
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}
	if chunks[1] != `ok {"terminalId":"t1"}` || chunks[2] != `ok {"exitCode":3,"signal":null}` {
		t.Errorf("create and wait answered %q and %q", chunks[1], chunks[2])
	}
	if chunks[3] != `ok {"exitStatus":{"exitCode":3,"signal":null},"output":"llo\n","truncated":true}` {
		t.Errorf("terminal/output answered %q, want the last 4 bytes, truncated, exit 3", chunks[3])
	}
	if !strings.HasPrefix(chunks[5], "error -32002") {
		t.Errorf("terminal/output after release answered %q, want resource not found", chunks[5])
	}
}

func TestSessionCancelEndsTurnAndWait(t *testing.T) {
	e := startProxy(t, "")
	e.open()
	e.mu.Lock()
	from := len(e.messages)
	e.mu.Unlock()
	done := make(chan *message, 1)
	go func() {
		r, _ := e.prompt(
			req("terminal/create", map[string]any{"command": "sleep 30"}),
			req("terminal/wait_for_exit", map[string]any{"terminalId": "t1"}),
			req("terminal/kill", map[string]any{"terminalId": "t1"}),
			req("terminal/wait_for_exit", map[string]any{"terminalId": "t1"}),
			map[string]any{"waitCancel": true},
		)
		done <- r
	}()
	// Cancel once the wait is under way, then again for the turn itself.
	deadline := time.Now().Add(20 * time.Second)
	for len(e.chunksSince(from)) < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	e.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": "s1"}})
	for len(e.chunksSince(from)) < 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	e.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": "s1"}})
	r := <-done
	chunks := e.chunksSince(from)
	if len(chunks) != 4 || !strings.HasPrefix(chunks[1], "error -32800") || !strings.Contains(chunks[3], `"exitCode":null,"signal":"SIG`) {
		t.Errorf("chunks = %q, want the wait canceled (-32800) and the kill to end the command by a signal", chunks)
	}
	if !strings.Contains(string(r.Result), "cancelled") {
		t.Errorf("the turn ended with %s, want stopReason cancelled", r.Result)
	}
}

func TestAgentExitFailsPendingRequestsAndStops(t *testing.T) {
	e := startProxy(t, "")
	ini, _ := e.open()
	pid := agentPID(ini)
	m, _ := e.prompt(map[string]any{"exit": 3})
	if m.Error == nil || !strings.Contains(m.Error.Message, "the agent exited") {
		t.Fatalf("the prompt the agent never answered got %+v, want an error saying the agent exited", m)
	}
	e.waitServed("the agent exited")
	if !processGone(pid) {
		t.Errorf("the agent (pid %d) is still there", pid)
	}
}

func TestEditorEOFStopsTheAgent(t *testing.T) {
	e := startProxy(t, "")
	ini, _ := e.open()
	pid := agentPID(ini)
	e.w.Close()
	e.waitServed("the editor's input ended")
	if !processGone(pid) {
		t.Errorf("the agent (pid %d) outlived the proxy", pid)
	}
}

// agentPID is the fake agent's pid from its initialize result.
func agentPID(ini *message) int {
	var r struct {
		Meta struct {
			PID int `json:"pid"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(ini.Result, &r)
	return r.Meta.PID
}

// waitServed waits for Serve to return (and leaves its result for the
// cleanup).
func (e *editor) waitServed(why string) {
	e.t.Helper()
	select {
	case err := <-e.served:
		e.served <- err
	case <-time.After(10 * time.Second):
		e.t.Fatalf("Serve did not return after %s", why)
	}
}

// The editor leaves while whale serves an agent request (a terminal wait):
// the proxy still stops, the request canceled and the agent gone.
func TestEditorEOFWhileWhaleServes(t *testing.T) {
	e := startProxy(t, "")
	ini, _ := e.open()
	pid := agentPID(ini)
	e.mu.Lock()
	from := len(e.messages)
	e.mu.Unlock()
	steps, _ := json.Marshal([]map[string]any{
		req("terminal/create", map[string]any{"command": "sleep 30"}),
		req("terminal/wait_for_exit", map[string]any{"terminalId": "t1"}),
	})
	e.send(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "session/prompt", "params": map[string]any{"sessionId": "s1", "prompt": []any{map[string]any{"type": "text", "text": string(steps)}}}})
	deadline := time.Now().Add(20 * time.Second)
	for len(e.chunksSince(from)) < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the wait is under way
	e.w.Close()
	e.waitServed("the editor's input ended during a terminal wait")
	if !processGone(pid) {
		t.Errorf("the agent (pid %d) outlived the proxy", pid)
	}
}

// fakeServer stands for an attached language server: its "editor buffer"
// of every file reads "unsaved\n", and it records the writes it got.
type fakeServer struct {
	mu     sync.Mutex
	writes []catalog.WriteTextInput
	done   chan struct{}
}

func (f *fakeServer) ReadText(_ context.Context, path string) (catalog.TextFile, error) {
	return catalog.TextFile{Path: path, Text: "unsaved\n"}, nil
}

func (f *fakeServer) WriteText(_ context.Context, in catalog.WriteTextInput) (catalog.WriteTextResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, in)
	return catalog.WriteTextResult{Path: in.Path, OldText: *in.Base, NewText: in.Content}, nil
}

func (f *fakeServer) Done() <-chan struct{} { return f.done }
func (f *fakeServer) Close() error          { return nil }

// With a language server attached, the agent reads the editor's buffer and
// its writes go to that server, with what it read as the base; when the
// connection ends, whale serves the files itself.
func TestFilesGoThroughTheAttachedServer(t *testing.T) {
	srv := &fakeServer{done: make(chan struct{})}
	e := startProxyWith(t, "", func(string) Attached { return srv })
	e.open()
	path := filepath.Join(e.root, "a.txt")
	os.WriteFile(path, []byte("on disk\n"), 0o644)
	_, chunks := e.prompt(
		req("fs/read_text_file", map[string]any{"path": path}),
		req("fs/write_text_file", map[string]any{"path": path, "content": "changed\n"}),
	)
	if len(chunks) != 2 || chunks[0] != `ok {"content":"unsaved\n"}` || chunks[1] != "ok {}" {
		t.Fatalf("chunks = %q, want the buffer's text and the write done", chunks)
	}
	if len(srv.writes) != 1 || *srv.writes[0].Base != "unsaved\n" || srv.writes[0].Agent != "Fake Agent" {
		t.Errorf("the server got writes %+v, want one based on the buffer's text, by Fake Agent", srv.writes)
	}
	if got, _ := os.ReadFile(path); string(got) != "on disk\n" {
		t.Errorf("the file on disk changed to %q: the write went around the server", got)
	}
	close(srv.done)
	_, chunks = e.prompt(req("fs/read_text_file", map[string]any{"path": path}))
	if len(chunks) != 1 || chunks[0] != `ok {"content":"on disk\n"}` {
		t.Errorf("after the server left, the read answered %q, want the disk", chunks)
	}
}

func TestSliceLines(t *testing.T) {
	one, two, zero := 1, 2, 0
	for _, tc := range []struct {
		text        string
		line, limit *int
		want        string
	}{
		{"a\nb\nc", nil, nil, "a\nb\nc"},
		{"a\nb\nc", &two, nil, "b\nc"},
		{"a\nb\nc\n", &two, &one, "b\n"},
		{"a\nb\n", &one, &zero, ""},
		{"a\nb\n", &two, &two, "b\n"},
	} {
		if got := sliceLines(tc.text, tc.line, tc.limit); got != tc.want {
			t.Errorf("sliceLines(%q, %v, %v) = %q, want %q", tc.text, tc.line, tc.limit, got, tc.want)
		}
	}
}

// scanHead agrees with encoding/json on the id and method of every line it
// accepts, and refuses what it cannot walk.
func TestScanHead(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"a":[1,{"b":"}]"}],"c":"\"method\":\"x\""}}`,
		`{"id":7,"method":"fs/read_text_file","params":{}}`,
		`{ "id" : "a\"b" , "result" : null }`,
		`{"params":{"method":"inner"},"method":"outer"}`,
		`{"id":[1,2],"method":"m"}`,
		`{}`,
		`{"method":"a\u0062"}`,
		`{"method":"x"`,
		`{"method":"x"} trailing`,
		`{"a":[1,2}`,
		`["method"]`,
		`{"method":"x",}`,
	} {
		id, method, _, ok := scanHead([]byte(line))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		err := json.Unmarshal([]byte(line), &m)
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("scanHead(%s) accepted a line encoding/json refuses (%v)", line, err)
			continue
		}
		if string(id) != string(m.ID) || string(method) != m.Method {
			t.Errorf("scanHead(%s) = %s, %q; encoding/json reads %s, %q", line, id, method, m.ID, m.Method)
		}
	}
	if _, method, _, ok := scanHead([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"text":"a \"quoted\" }"}}}`)); !ok || string(method) != "session/update" {
		t.Errorf("scanHead refused a session/update line (ok %v, method %q)", ok, method)
	}
}

// relayedUpdate relays unread only the session/update lines that name no
// tool call, wherever the toolCallId is, and whatever the text around it.
func TestRelayedUpdate(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a long enough text with \"quotes\" and \\ slashes"}}}}`, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c1"}}}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"content":[{"a":{"toolCallId":"c1"}}]}}}`, false},
		{`{"params":{"update":{"toolCallId":"c1"}},"method":"session/update"}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"text":"toolCallId"}}}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"text":"no toolCallIds here"}}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"session/update","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"session/prompt","params":{}}`, false},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"text\":\"a raw\ttab in a string\"}}", false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"text":"unclosed}}`, false},
	} {
		if got := relayedUpdate([]byte(tc.line)); got != tc.want {
			t.Errorf("relayedUpdate(%s) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// stringEnd, eight bytes at a time, ends every string where a byte-by-byte
// walk does, for quotes, backslashes and control bytes at every offset.
func TestStringEndWords(t *testing.T) {
	slow := func(b []byte, i int) (int, bool) {
		escaped := false
		for j := i + 1; j < len(b); j++ {
			switch {
			case b[j] == '\\':
				escaped = true
				j++
			case b[j] == '"':
				return j, escaped
			case b[j] < 0x20:
				return -1, false
			}
		}
		return -1, false
	}
	for _, special := range []string{`"`, `\`, `\"`, "\x01", "\x1f", "\x00", "\x7f", "\x80", "\xe2\x80\x9c", " ", "!", "#", "[", "\\", "]", "\x01\"", "a\x1f\\\"", "\xff\x1f", "\\\x01"} {
		for at := range 20 {
			b := []byte(`"` + strings.Repeat("ab", 12) + `"`)
			b = append(b[:1+at:1+at], append([]byte(special), b[1+at:]...)...)
			gotEnd, gotEsc := stringEnd(b, 0)
			wantEnd, wantEsc := slow(b, 0)
			if gotEnd != wantEnd || gotEsc != wantEsc {
				t.Errorf("stringEnd(%q) = %d, %v; want %d, %v", b, gotEnd, gotEsc, wantEnd, wantEsc)
			}
		}
	}
}

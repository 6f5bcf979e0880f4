package acpfront

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/session"
)

// maxLine bounds one message; a longer line ends the side that sent it.
const maxLine = 64 << 20

// Options configure a Proxy.
type Options struct {
	// Agent is the real agent's command line.
	Agent []string
	// Dir is the agent's working folder ("" keeps the proxy's).
	Dir string
	// Stderr receives the agent's standard error.
	Stderr io.Writer
	// Root is the workspace folder; "" takes the cwd of the first
	// session/new or session/load.
	Root string
	// OpenSession opens the whale session of the workspace root, at the
	// first session/new or session/load. Its Prompter and terminal sink
	// must be the proxy's (Prompter, TerminalSink).
	OpenSession func(root string) (*session.Session, error)
	// Attach, when set, reaches the running language server of the root
	// (nil when there is none): the agent's files are then read and written
	// through it, so reads see the editor's unsaved buffers and writes land
	// in them. Terminals stay this process's.
	Attach func(root string) Attached
	// MCPServer, when set, makes the stdio MCP server added to every
	// session/new and session/load (whale's own tools) for the root; nil
	// adds none.
	MCPServer func(root string) *MCPServer
	// EditorFiles sends the agent's fs/read_text_file and fs/write_text_file
	// on to the editor after whale's checks (path guards, stale write,
	// journal) instead of serving them, when the editor advertised both in
	// its initialize (see forward.go for what is kept).
	EditorFiles bool
	// KeepAgentTools leaves a recognised agent's own edit, write and shell
	// tools on (see agentHands); without MCPServer they are always left on.
	KeepAgentTools bool
	// AgentName names the agent for a person until its initialize response
	// names it (default: the base name of Agent[0]).
	AgentName string
	Log       *slog.Logger
}

// Files serves the agent's whole-file reads and writes: a session's commit
// path, here or in an attached language server.
type Files interface {
	ReadText(ctx context.Context, path string) (catalog.TextFile, error)
	WriteText(ctx context.Context, in catalog.WriteTextInput) (catalog.WriteTextResult, error)
}

// Attached is the file service of a running language server; Done is
// closed when the connection ends (the proxy then serves files itself).
type Attached interface {
	Files
	Done() <-chan struct{}
	Close() error
}

// localFiles is a session's own commit path as Files.
type localFiles struct{ c *catalog.Committer }

func (l localFiles) ReadText(_ context.Context, path string) (catalog.TextFile, error) {
	return l.c.ReadText(path)
}

func (l localFiles) WriteText(ctx context.Context, in catalog.WriteTextInput) (catalog.WriteTextResult, error) {
	return l.c.WriteText(ctx, in)
}

// MCPServer is an ACP stdio MCP server entry.
type MCPServer struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Env     []EnvVar `json:"env"`
}

// EnvVar is an ACP environment variable.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Proxy is one `whale-ls acp` connection: the editor on one side, the
// agent on the other. Build it with New, give its Prompter and
// TerminalSink to the session, then Serve.
type Proxy struct {
	opts   Options
	log    *slog.Logger
	editor *peer
	agent  *peer
	// lastSession is the ACP session id of the latest session/prompt or
	// whale-served request: the session an exec approval is asked in.
	lastSession atomic.Value // string
	agentName   atomic.Value // string
	terms       *terminals
	files       *fileService
	updates     *toolCalls
	// editorFS is set when the editor's initialize advertised
	// fs.readTextFile and fs.writeTextFile.
	editorFS atomic.Bool
	// hands is the recognised agent whose own tools are kept off, or nil.
	hands *agentHands

	sessMu sync.Mutex
	sess   *session.Session // nil until the first session/new or session/load
	root   string
	// attached is the language server the files go through; nil: none.
	attached Attached

	mu sync.Mutex
	// fromEditor holds the editor's requests passed to the agent and not
	// answered yet (by idKey), with their method.
	fromEditor map[string]string
	// toEditor holds the requests sent to the editor and not answered yet,
	// by the id the editor sees.
	toEditor map[string]*outgoing
	// agentToEditor maps the id of an agent request to the id the editor
	// sees, for $/cancel_request.
	agentToEditor map[string]json.RawMessage
	// served holds the cancel functions of the agent requests whale serves.
	served map[string]context.CancelFunc
	// sessionCalls holds the cancel functions of whale's own work per ACP
	// session (approvals asked, terminal waits), for session/cancel.
	sessionCalls map[string]map[*int]context.CancelFunc
	ownSeq       int
}

// outgoing is a request to the editor: the agent's (agentID set) or whale's
// own (reply set).
type outgoing struct {
	agentID json.RawMessage
	reply   chan *message
}

// New makes a proxy; nothing runs until Serve.
func New(o Options) *Proxy {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	p := &Proxy{opts: o, log: o.Log,
		fromEditor: map[string]string{}, toEditor: map[string]*outgoing{}, agentToEditor: map[string]json.RawMessage{},
		served: map[string]context.CancelFunc{}, sessionCalls: map[string]map[*int]context.CancelFunc{},
		terms: newTerminals(), updates: newToolCalls(), files: &fileService{bases: map[string]string{}}}
	name := o.AgentName
	if name == "" && len(o.Agent) > 0 {
		name = filepath.Base(o.Agent[0])
	}
	if o.MCPServer != nil && !o.KeepAgentTools {
		if p.hands = recogniseAgent(o.Agent); p.hands != nil {
			p.log.Info("the agent's own edit, write and shell tools are off; whale's tools take their place (--keep-agent-tools leaves them on)", "agent", p.hands.Title, "off", p.hands.Off)
		}
	}
	p.agentName.Store(name)
	p.lastSession.Store("")
	return p
}

// TerminalSink is the sink the session's task table must write to: it
// keeps each terminal's output for terminal/output.
func (p *Proxy) TerminalSink() *TerminalSink { return &TerminalSink{t: p.terms} }

// Serve runs the agent and relays between in/out (the editor) and it until
// the editor's input ends, ctx ends or the agent exits. The agent is
// stopped; the session stays open until Close.
func (p *Proxy) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	p.editor = newPeer(out)
	argv, cleanup, err := p.hands.prepareArgs(p.opts.Agent)
	if err != nil {
		return err
	}
	defer cleanup()
	a, err := startAgent(argv, p.opts.Dir, p.opts.Stderr)
	if err != nil {
		return err
	}
	p.agent = newPeer(a.stdin)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	editorDone := make(chan error, 1)
	agentDone := make(chan error, 1)
	go func() { editorDone <- p.readLines(ctx, in, p.fromEditorLine, p.agent) }()
	go func() { agentDone <- p.readLines(ctx, a.stdout, p.fromAgentLine, p.editor) }()

	var result error
	select {
	case err := <-editorDone:
		if err != nil && !errors.Is(err, io.EOF) {
			result = fmt.Errorf("read the editor's messages: %w", err)
		}
		p.log.Info("the editor's input ended; stopping the agent")
	case <-agentDone:
		<-a.exited
		p.log.Info(a.exitText())
		p.failPendingEditorRequests(a.exitText())
	case <-ctx.Done():
	}
	cancel()
	p.cancelServed()
	a.stop()
	return result
}

// Session returns the whale session, nil before the first session/new or
// session/load.
func (p *Proxy) Session() *session.Session {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	return p.sess
}

// Close closes the whale session, if one was opened, and the connection
// to an attached language server.
func (p *Proxy) Close() {
	p.sessMu.Lock()
	s, a := p.sess, p.attached
	p.sessMu.Unlock()
	if a != nil {
		a.Close()
	}
	if s != nil {
		s.Close()
	}
}

// filesOf returns where the agent's files are served: the attached language
// server while its connection lasts, else sess's commit path.
func (p *Proxy) filesOf(sess *session.Session) Files {
	p.sessMu.Lock()
	a := p.attached
	p.sessMu.Unlock()
	if a != nil {
		select {
		case <-a.Done():
		default:
			return a
		}
	}
	return localFiles{sess.Commits}
}

// openSession opens the whale session on the first session/new or
// session/load, in the root given (or the request's cwd), and returns the
// root.
func (p *Proxy) openSession(params json.RawMessage) (string, error) {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	if p.sess != nil {
		return p.root, nil
	}
	root := p.opts.Root
	if root == "" {
		var c struct {
			Cwd string `json:"cwd"`
		}
		_ = json.Unmarshal(params, &c)
		if !filepath.IsAbs(c.Cwd) {
			return "", fmt.Errorf("the session's cwd %s is not an absolute path, and whale-ls acp has no --root; send an absolute cwd, or start whale-ls acp with --root", excerpt.Quote(c.Cwd))
		}
		root = c.Cwd
	}
	if p.opts.OpenSession == nil {
		return "", errors.New("whale-ls acp was built without a way to open its session")
	}
	s, err := p.opts.OpenSession(root)
	if err != nil {
		return "", fmt.Errorf("whale could not open the workspace %s (%w); check the folder, or start whale-ls acp with --root", root, err)
	}
	p.sess, p.root = s, root
	if p.opts.Attach != nil {
		p.attached = p.opts.Attach(root)
	}
	return root, nil
}

// session returns the whale session, or the error an agent request gets
// before there is one.
func (p *Proxy) session() (*session.Session, error) {
	if s := p.Session(); s != nil {
		return s, nil
	}
	return nil, &rpcError{Code: codeInvalidRequest, Message: "whale serves files and terminals once a session exists; send this after session/new or session/load"}
}

// readLines hands each line of r to handle until r ends, and flushes what
// handle relayed to dest whenever r has nothing more buffered: a burst of
// messages leaves in few writes, and none waits while the reader blocks.
func (p *Proxy) readLines(ctx context.Context, r io.Reader, handle func(context.Context, []byte), dest *peer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			handle(ctx, line)
		}
		if br.Buffered() == 0 || err != nil {
			if ferr := dest.flush(); ferr != nil {
				p.log.Debug("flush", "err", ferr)
			}
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line without its newline, refusing lines over maxLine.
// A line that fits br's buffer is returned in place, not copied: it is
// valid until the next read from br, and handlers copy what they keep.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if line == nil && !errors.Is(err, bufio.ErrBufferFull) {
			line = chunk
		} else {
			line = append(line, chunk...)
		}
		if len(line) > maxLine {
			return nil, fmt.Errorf("a message is longer than %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
			line = line[:len(line)-1]
		}
		return line, err
	}
}

// relayedUpdate reports whether line is a session/update notification the
// proxy relays without decoding it: the stream of them is routed on the
// top-level fields alone. One that names a tool call (a toolCallId
// anywhere) is decoded, so that the proxy can follow the tool calls.
func relayedUpdate(line []byte) bool {
	id, method, toolCall, ok := scanHead(line)
	return ok && id == nil && string(method) == "session/update" && !toolCall
}

// parse decodes a line, or answers on back what it cannot route.
func parse(line []byte, back *peer) (*message, bool) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		_ = back.fail(nil, &rpcError{Code: codeParseError, Message: fmt.Sprintf("parse error: the line is not a JSON-RPC message (%s); send one JSON object per line", excerpt.Quote(string(line)))})
		return nil, false
	}
	if m.Method == "" && m.ID == nil {
		_ = back.fail(nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: a message needs a method or an id"})
		return nil, false
	}
	return &m, true
}

// fromEditorLine routes one line from the editor.
func (p *Proxy) fromEditorLine(ctx context.Context, line []byte) {
	m, ok := parse(line, p.editor)
	if !ok {
		return
	}
	switch {
	case m.isResponse():
		p.editorResponse(m, line)
		return
	case m.Method == "initialize" && m.isRequest():
		p.noteEditorCapabilities(m.Params)
		line = p.rewriteInitialize(line, m)
	case (m.Method == "session/new" || m.Method == "session/load") && m.isRequest():
		root, err := p.openSession(m.Params)
		if err != nil {
			_ = p.editor.fail(m.ID, &rpcError{Code: codeInternal, Message: err.Error()})
			return
		}
		line = p.hands.withSessionMeta(p.addMCPServer(line, m, root))
	case m.Method == "session/prompt":
		p.noteSession(m.Params)
	case m.Method == "session/cancel":
		p.cancelSession(m.Params)
	}
	if m.isRequest() {
		p.mu.Lock()
		p.fromEditor[idKey(m.ID)] = m.Method
		p.mu.Unlock()
	}
	p.toAgent(line)
}

// toAgent relays a line to the agent; a failure means the agent is gone,
// which the agent's reader notices.
func (p *Proxy) toAgent(line []byte) {
	if err := p.agent.relay(line); err != nil {
		p.log.Debug("write to the agent", "err", err)
	}
}

// toEditorLine relays a line to the editor.
func (p *Proxy) toEditorLine(line []byte) {
	if err := p.editor.relay(line); err != nil {
		p.log.Debug("write to the editor", "err", err)
	}
}

// editorResponse delivers the editor's answer to whale's own request or
// passes it to the agent under the agent's id.
func (p *Proxy) editorResponse(m *message, line []byte) {
	key := idKey(m.ID)
	p.mu.Lock()
	o := p.toEditor[key]
	delete(p.toEditor, key)
	if o != nil && o.agentID != nil {
		delete(p.agentToEditor, idKey(o.agentID))
	}
	p.mu.Unlock()
	switch {
	case o == nil:
		p.log.Warn("the editor answered a request nobody sent", "id", key)
	case o.reply != nil:
		o.reply <- m
	case key == idKey(o.agentID):
		p.toAgent(line)
	default:
		if out, err := withFields(line, map[string]any{"id": o.agentID}); err == nil {
			p.toAgent(out)
		}
	}
}

// fromAgentLine routes one line from the agent.
func (p *Proxy) fromAgentLine(ctx context.Context, line []byte) {
	if relayedUpdate(line) {
		p.toEditorLine(line)
		return
	}
	m, ok := parse(line, p.agent)
	if !ok {
		return
	}
	switch {
	case m.isResponse():
		p.agentResponse(m, line)
	case m.isRequest() && whaleServes(m.Method):
		p.serve(ctx, m)
	case m.isRequest():
		p.forwardAgentRequest(m, line)
	case m.Method == "$/cancel_request":
		p.agentCancel(m, line)
	default:
		if m.Method == "session/update" && m.Params != nil {
			p.updates.observe(m.Params)
		}
		p.toEditorLine(line)
	}
}

// agentResponse passes the agent's answer on to the editor, learning the
// agent's name from its initialize result.
func (p *Proxy) agentResponse(m *message, line []byte) {
	key := idKey(m.ID)
	p.mu.Lock()
	method := p.fromEditor[key]
	delete(p.fromEditor, key)
	p.mu.Unlock()
	if method == "initialize" && m.Result != nil {
		var r struct {
			AgentInfo *struct {
				Name  string `json:"name"`
				Title string `json:"title"`
			} `json:"agentInfo"`
		}
		if json.Unmarshal(m.Result, &r) == nil && r.AgentInfo != nil {
			if name := firstNonEmpty(r.AgentInfo.Title, r.AgentInfo.Name); name != "" {
				p.agentName.Store(name)
			}
		}
	}
	p.toEditorLine(line)
}

// forwardAgentRequest passes an agent request to the editor, under another
// id when the agent's is in use there.
func (p *Proxy) forwardAgentRequest(m *message, line []byte) {
	p.mu.Lock()
	id := m.ID
	if _, busy := p.toEditor[idKey(id)]; busy {
		id = p.freeIDLocked("agent")
	}
	p.toEditor[idKey(id)] = &outgoing{agentID: m.ID}
	p.agentToEditor[idKey(m.ID)] = id
	p.mu.Unlock()
	if idKey(id) != idKey(m.ID) {
		var err error
		if line, err = withFields(line, map[string]any{"id": id}); err != nil {
			return
		}
	}
	p.toEditorLine(line)
}

// freeIDLocked returns a string id no request to the editor uses.
func (p *Proxy) freeIDLocked(kind string) json.RawMessage {
	for {
		p.ownSeq++
		id := json.RawMessage(strconv.Quote("whale-" + kind + "-" + strconv.Itoa(p.ownSeq)))
		if _, busy := p.toEditor[idKey(id)]; !busy {
			return id
		}
	}
}

// agentCancel cancels a request whale serves, or passes the cancellation
// of a forwarded request on under the id the editor knows.
func (p *Proxy) agentCancel(m *message, line []byte) {
	var c struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &c) != nil || c.RequestID == nil {
		p.toEditorLine(line)
		return
	}
	key := idKey(c.RequestID)
	p.mu.Lock()
	cancel := p.served[key]
	editorID, forwarded := p.agentToEditor[key]
	p.mu.Unlock()
	switch {
	case cancel != nil:
		cancel()
	case forwarded && idKey(editorID) != key:
		params, err := withFields(m.Params, map[string]any{"requestId": editorID})
		if err == nil {
			line, err = withFields(line, map[string]any{"params": json.RawMessage(params)})
		}
		if err == nil {
			p.toEditorLine(line)
		}
	default:
		p.toEditorLine(line)
	}
}

// askEditor sends whale's own request to the editor and waits for the
// answer; ctx ending sends $/cancel_request and returns ctx's error.
func (p *Proxy) askEditor(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p.mu.Lock()
	id := p.freeIDLocked("ask")
	o := &outgoing{reply: make(chan *message, 1)}
	p.toEditor[idKey(id)] = o
	p.mu.Unlock()
	if err := p.editor.request(id, method, params); err != nil {
		p.forget(id)
		return nil, err
	}
	select {
	case m := <-o.reply:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		p.forget(id)
		_ = p.editor.notify("$/cancel_request", map[string]any{"requestId": id})
		return nil, ctx.Err()
	}
}

func (p *Proxy) forget(id json.RawMessage) {
	p.mu.Lock()
	delete(p.toEditor, idKey(id))
	p.mu.Unlock()
}

// failPendingEditorRequests answers every editor request the agent left
// unanswered.
func (p *Proxy) failPendingEditorRequests(why string) {
	p.mu.Lock()
	keys := make([]string, 0, len(p.fromEditor))
	for k := range p.fromEditor {
		keys = append(keys, k)
	}
	p.fromEditor = map[string]string{}
	p.mu.Unlock()
	for _, k := range keys {
		_ = p.editor.fail(json.RawMessage(k), &rpcError{Code: codeInternal, Message: why + " before it answered; start the agent again (restart the conversation)"})
	}
}

// cancelServed cancels every request whale is serving.
func (p *Proxy) cancelServed() {
	p.mu.Lock()
	var cancels []context.CancelFunc
	for _, cancel := range p.served {
		cancels = append(cancels, cancel)
	}
	for _, calls := range p.sessionCalls {
		for _, cancel := range calls {
			cancels = append(cancels, cancel)
		}
	}
	p.mu.Unlock()
	// Outside the lock: a served request's cancel function takes it.
	for _, cancel := range cancels {
		cancel()
	}
}

// noteSession remembers the session of a request's params.
func (p *Proxy) noteSession(params json.RawMessage) string {
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &s) == nil && s.SessionID != "" {
		p.lastSession.Store(s.SessionID)
	}
	return s.SessionID
}

// cancelSession ends whale's own work for the session of a session/cancel
// (an approval asked, a terminal wait); the notification itself goes on to
// the agent.
func (p *Proxy) cancelSession(params json.RawMessage) {
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &s) != nil {
		return
	}
	p.mu.Lock()
	calls := p.sessionCalls[s.SessionID]
	delete(p.sessionCalls, s.SessionID)
	p.mu.Unlock()
	for _, cancel := range calls {
		cancel()
	}
}

// sessionContext is ctx, canceled also by a session/cancel of sessionID;
// done must be called when the work ends.
func (p *Proxy) sessionContext(ctx context.Context, sessionID string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := new(int)
	p.mu.Lock()
	if p.sessionCalls[sessionID] == nil {
		p.sessionCalls[sessionID] = map[*int]context.CancelFunc{}
	}
	p.sessionCalls[sessionID][key] = cancel
	p.mu.Unlock()
	return ctx, func() {
		p.mu.Lock()
		delete(p.sessionCalls[sessionID], key)
		p.mu.Unlock()
		cancel()
	}
}

// rewriteInitialize advertises whale's file system and terminals to the
// agent, whatever the editor offers itself.
func (p *Proxy) rewriteInitialize(line []byte, m *message) []byte {
	var params map[string]json.RawMessage
	if json.Unmarshal(m.Params, &params) != nil || params == nil {
		return line
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(params["clientCapabilities"], &caps)
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	var fs map[string]json.RawMessage
	_ = json.Unmarshal(caps["fs"], &fs)
	if fs == nil {
		fs = map[string]json.RawMessage{}
	}
	fs["readTextFile"], fs["writeTextFile"] = json.RawMessage("true"), json.RawMessage("true")
	caps["fs"] = mustJSON(fs)
	caps["terminal"] = json.RawMessage("true")
	params["clientCapabilities"] = mustJSON(caps)
	out, err := withFields(line, map[string]any{"params": params})
	if err != nil {
		return line
	}
	return out
}

// addMCPServer adds whale's MCP server to a session/new or session/load,
// unless one of that name is there.
func (p *Proxy) addMCPServer(line []byte, m *message, root string) []byte {
	if p.opts.MCPServer == nil {
		return line
	}
	server := p.opts.MCPServer(root)
	if name, _ := p.agentName.Load().(string); name != "" {
		named := *server
		named.Args = append(append([]string(nil), server.Args...), "--agent", name)
		server = &named
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m.Params, &params) != nil || params == nil {
		return line
	}
	var servers []json.RawMessage
	_ = json.Unmarshal(params["mcpServers"], &servers)
	for _, s := range servers {
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(s, &named) == nil && named.Name == server.Name {
			return line
		}
	}
	servers = append(servers, mustJSON(server))
	params["mcpServers"] = mustJSON(servers)
	out, err := withFields(line, map[string]any{"params": params})
	if err != nil {
		return line
	}
	return out
}

// mustJSON marshals values that always marshal (maps of raw JSON, structs
// of strings).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

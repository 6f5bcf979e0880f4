package lsp_test

// The end-to-end harness: the real whale-ls binary over real stdio, driven
// by go.lsp.dev/protocol's client and a fake editor that keeps document
// versions, records what the server asks of it, and answers.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/internal/testtree"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/toolbridge"
)

var (
	binaryDir  string
	buildOnce  sync.Once
	buildError error
)

// whaleBinary builds whale-ls once per test process, on first use (fuzz
// workers of this package never need it).
func whaleBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binaryDir, buildError = os.MkdirTemp("", "whale-ls-e2e")
		if buildError != nil {
			return
		}
		out, err := exec.Command("go", "build", "-tags", "whaletest", "-o", filepath.Join(binaryDir, "whale-ls"), "../cmd/whale-ls").CombinedOutput()
		if err != nil {
			buildError = fmt.Errorf("building whale-ls: %v\n%s", err, out)
		}
	})
	if buildError != nil {
		t.Fatal(buildError)
	}
	return filepath.Join(binaryDir, "whale-ls")
}

func TestMain(m *testing.M) {
	// A server run inside this test binary starts the exec gate's helper
	// as this executable with "exec-gate", as whale-ls does: be that
	// helper instead of running every test again in a chain of children.
	if len(os.Args) > 1 && os.Args[1] == execboundary.HelperCommand {
		os.Exit(execboundary.RunHelper(os.Args[2:], sandbox.Apply))
	}
	// The ACP test runs this binary as its agent (acp_e2e_test.go).
	if os.Getenv(acpAgentVar) == "1" {
		os.Exit(runACPAgent(os.Stdin, os.Stdout))
	}
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	mcptest.Cleanup()
	os.Exit(code)
}

// trace keeps the last bytes that crossed the wire, printed when a test fails.
type trace struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *trace) add(dir string, p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(&t.buf, "%s %s\n", dir, p)
	if t.buf.Len() > 256<<10 {
		rest := t.buf.Bytes()[t.buf.Len()-128<<10:]
		t.buf.Reset()
		t.buf.WriteString("…\n")
		t.buf.Write(rest)
	}
}

func (t *trace) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// pipes joins the server's stdout (read) and stdin (write), recording both.
type pipes struct {
	r  io.ReadCloser
	w  io.WriteCloser
	tr *trace
}

func (p *pipes) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.tr.add("<-", b[:n])
	}
	return n, err
}

func (p *pipes) Write(b []byte) (int, error) {
	p.tr.add("->", b)
	return p.w.Write(b)
}

func (p *pipes) Close() error {
	p.w.Close()
	return p.r.Close()
}

// editorDoc is a document as the fake editor holds it.
type editorDoc struct {
	version int32
	text    string
}

// fakeEditor is the client side: it keeps document versions, records
// server requests and notifications, and answers them.
type fakeEditor struct {
	protocol.UnimplementedClient
	session *session

	mu       sync.Mutex
	docs     map[uri.URI]*editorDoc
	logs     []string
	progress []string
	// progressMessages are the $/progress values as "kind: message".
	progressMessages []string
	created          int
	// applyMode says how applyEdit is answered: "" applies (one didChange
	// per edit, as Neovim does), "lie" answers applied without applying,
	// "refuse" answers applied:false, "typeFirst" lets the user type into
	// the document before each edit arrives, "typeOnce" before the first.
	applyMode string
	applied   []json.RawMessage
	// saveable lists the documents whale/saveDocuments reports as saved
	// (all when nil); saves records every request.
	saves   [][]string
	whaleNT []string // whale/* notifications received, as "method params"
	// messagePick is the action title window/showMessageRequest answers
	// with ("" dismisses).
	messagePick string
	// language answers whale/diagnostics and whale/languageFeature (method,
	// params → result); nil answers method-not-found, a func that blocks
	// holds the request until ctx ends.
	language func(ctx context.Context, method string, params json.RawMessage) (any, error)
}

func (e *fakeEditor) ShowMessageRequest(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	e.mu.Lock()
	pick := e.messagePick
	e.mu.Unlock()
	for _, a := range p.Actions {
		if a.Title == pick {
			return &a, nil
		}
	}
	return nil, nil
}

// clientCodec is the codec protocol.NewClient installs: LSP values through
// the union-aware encoder.
type clientCodec struct{}

func (clientCodec) Marshal(v any) ([]byte, error) {
	if r, ok := v.(jsonrpc2.RawMessage); ok {
		return r, nil
	}
	return protocol.Marshal(v)
}

func (clientCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// whale answers the whale/* methods: saveDocuments writes the editor's text
// to disk, notifications are recorded.
func (e *fakeEditor) whale(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := req.Method()
	params := append([]byte(nil), req.Params()...)
	if !req.IsCall() {
		e.mu.Lock()
		e.whaleNT = append(e.whaleNT, method+" "+string(params))
		e.mu.Unlock()
		return nil, nil
	}
	switch method {
	case "whale/diagnostics", "whale/languageFeature":
		e.mu.Lock()
		answer := e.language
		e.mu.Unlock()
		if answer == nil {
			return nil, jsonrpc2.ErrMethodNotFound
		}
		return answer(ctx, method, params)
	case "whale/saveDocuments":
		var p struct {
			URIs []string `json:"uris"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		e.saves = append(e.saves, p.URIs)
		saved := []string{}
		for _, u := range p.URIs {
			if d := e.docs[uri.URI(u)]; d != nil {
				if err := os.WriteFile(uri.URI(u).FsPath(), []byte(d.text), 0o644); err == nil {
					saved = append(saved, u)
				}
			}
		}
		return map[string]any{"saved": saved}, nil
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// ApplyEdit applies a workspace edit the way a strict editor does: every
// document's version must match, then each edit becomes one didChange.
func (e *fakeEditor) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	raw, _ := protocol.Marshal(p)
	var edit struct {
		Edit struct {
			DocumentChanges []struct {
				TextDocument struct {
					URI     uri.URI `json:"uri"`
					Version int32   `json:"version"`
				} `json:"textDocument"`
				Edits []struct {
					Range   protocol.Range `json:"range"`
					NewText string         `json:"newText"`
				} `json:"edits"`
			} `json:"documentChanges"`
		} `json:"edit"`
	}
	json.Unmarshal(raw, &edit)
	e.mu.Lock()
	e.applied = append(e.applied, raw)
	mode := e.applyMode
	e.mu.Unlock()
	switch mode {
	case "lie":
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	case "refuse":
		return &protocol.ApplyWorkspaceEditResult{Applied: false}, nil
	case "typeFirst", "typeOnce":
		if mode == "typeOnce" {
			e.mu.Lock()
			e.applyMode = ""
			e.mu.Unlock()
		}
		for _, dc := range edit.Edit.DocumentChanges {
			e.mu.Lock()
			d := e.docs[dc.TextDocument.URI]
			text := d.text
			e.mu.Unlock()
			e.session.change(dc.TextDocument.URI, rng(0, 0, 0, 0), "typed ", "typed "+text)
		}
	}
	e.mu.Lock()
	for _, dc := range edit.Edit.DocumentChanges {
		d := e.docs[dc.TextDocument.URI]
		if d == nil || d.version != dc.TextDocument.Version {
			e.mu.Unlock()
			return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: ptr("version mismatch")}, nil
		}
	}
	type step struct {
		u      uri.URI
		r      protocol.Range
		text   string
		result string
	}
	var steps []step
	for _, dc := range edit.Edit.DocumentChanges {
		text := e.docs[dc.TextDocument.URI].text
		// Apply from the end so earlier ranges stay valid, as editors do.
		for i := len(dc.Edits) - 1; i >= 0; i-- {
			ed := dc.Edits[i]
			start, end := utf16Offset(text, ed.Range.Start), utf16Offset(text, ed.Range.End)
			text = text[:start] + ed.NewText + text[end:]
			steps = append(steps, step{dc.TextDocument.URI, ed.Range, ed.NewText, text})
		}
	}
	e.mu.Unlock()
	for _, st := range steps {
		e.session.change(st.u, st.r, st.text, st.result)
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

// utf16Offset converts an LSP position (UTF-16) to a byte offset.
func utf16Offset(text string, p protocol.Position) int {
	line := uint32(0)
	i := 0
	for i < len(text) && line < p.Line {
		if text[i] == '\n' {
			line++
		}
		i++
	}
	units := uint32(0)
	for i < len(text) && units < p.Character && text[i] != '\n' && text[i] != '\r' {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return i
}

func (e *fakeEditor) LogMessage(_ context.Context, p *protocol.LogMessageParams) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, p.Message)
	return nil
}

func (e *fakeEditor) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.created++
	return nil
}

func (e *fakeEditor) Progress(_ context.Context, p *protocol.ProgressParams) error {
	var v struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(p.Value, &v)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progress = append(e.progress, v.Kind)
	e.progressMessages = append(e.progressMessages, v.Kind+": "+v.Message)
	return nil
}

// session is one running server and its editor.
type session struct {
	t      *testing.T
	root   string
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	server protocol.Server
	ed     *fakeEditor
	tr     *trace
	stderr *lockedWriter
	init   *protocol.InitializeResult
}

type sessionOptions struct {
	// runtimeDir is the server's XDG_RUNTIME_DIR (attach socket); default
	// a fresh temp folder.
	runtimeDir   string
	initOptions  any
	encodings    []protocol.PositionEncodingKind
	experimental any
	// capabilities, if set, adjusts the client capabilities sent.
	capabilities func(*protocol.ClientCapabilities)
	progress     bool
}

// start runs whale-ls on root and initializes it.
func start(t *testing.T, root string, o sessionOptions) *session {
	t.Helper()
	cmd := exec.Command(whaleBinary(t))
	cmd.Dir = root
	runtimeDir := o.runtimeDir
	if runtimeDir == "" {
		runtimeDir = t.TempDir()
	}
	cmd.Env = append(os.Environ(), "WHALE_LS_TEST_TOOLS=1", "XDG_RUNTIME_DIR="+runtimeDir, "XDG_STATE_HOME="+runtimeDir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	stderrW := &lockedWriter{w: &stderr}
	cmd.Stderr = stderrW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, root: root, cmd: cmd, ed: &fakeEditor{docs: map[uri.URI]*editorDoc{}}, tr: &trace{}, stderr: stderrW}
	stream := jsonrpc2.NewStream(&pipes{r: stdout, w: stdin, tr: s.tr})
	// What protocol.NewClient does, plus a fallback handler for the
	// whale/* requests and notifications a plain LSP client does not know.
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(clientCodec{}))
	s.ed.session = s
	// Notifications are handled in arrival order, as a real editor does
	// (protocol.Handlers would run them concurrently); calls concurrently.
	handler := protocol.ClientHandler(s.ed, s.ed.whale)
	s.conn.Go(protocol.WithClient(context.Background(), s.ed), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		return handler(ctx, req)
	})
	s.server = protocol.ServerDispatcher(s.conn)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("JSON-RPC trace:\n%s\nserver stderr:\n%s", s.tr, s.stderrText())
		}
		s.conn.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	params := &protocol.InitializeParams{}
	params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: uri.File(root), Name: "root"}})
	caps := protocol.ClientCapabilities{}
	if len(o.encodings) > 0 {
		caps.General = &protocol.GeneralClientCapabilities{PositionEncodings: o.encodings}
	}
	if o.progress {
		yes := true
		caps.Window = &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}
	}
	if o.experimental != nil {
		caps.Experimental = protocol.LSPAny(mustJSON(t, o.experimental))
	}
	if o.capabilities != nil {
		o.capabilities(&caps)
	}
	params.Capabilities = caps
	if o.initOptions != nil {
		params.InitializationOptions = protocol.LSPAny(mustJSON(t, o.initOptions))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.server.Initialize(ctx, params)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	s.init = res
	if err := s.server.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	return s
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// stderrText is what the server wrote to stderr so far.
func (s *session) stderrText() string {
	s.stderr.mu.Lock()
	defer s.stderr.mu.Unlock()
	return s.stderr.w.(*bytes.Buffer).String()
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// exec runs whale.<tool> through workspace/executeCommand.
func (s *session) exec(ctx context.Context, tool string, input any) toolbridge.Envelope {
	s.t.Helper()
	res, err := s.server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{
		Command:   "whale." + tool,
		Arguments: []protocol.LSPAny{protocol.LSPAny(mustJSON(s.t, input))},
	})
	if err != nil {
		s.t.Fatalf("executeCommand whale.%s: %v", tool, err)
	}
	var env toolbridge.Envelope
	if err := json.Unmarshal(res, &env); err != nil {
		s.t.Fatalf("executeCommand whale.%s result %s is not an Envelope: %v", tool, res, err)
	}
	return env
}

func (s *session) path(rel string) string { return filepath.Join(s.root, rel) }

// open sends didOpen and remembers the document at version.
func (s *session) open(rel, text string, version int32) uri.URI {
	s.t.Helper()
	u := uri.File(s.path(rel))
	s.ed.mu.Lock()
	s.ed.docs[u] = &editorDoc{version: version, text: text}
	s.ed.mu.Unlock()
	err := s.server.DidOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: version, Text: text}})
	if err != nil {
		s.t.Fatal(err)
	}
	return u
}

// change sends one incremental didChange replacing rng with text; the
// editor's copy is updated by the caller-provided result text.
func (s *session) change(u uri.URI, rng protocol.Range, text, result string) {
	s.t.Helper()
	s.ed.mu.Lock()
	d := s.ed.docs[u]
	d.version++
	d.text = result
	v := d.version
	s.ed.mu.Unlock()
	err := s.server.DidChange(context.Background(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: rng, Text: text}},
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, files)
	return root
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func wantText(t *testing.T, env toolbridge.Envelope, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(env.Text, p) {
			t.Errorf("envelope %s text %q lacks %q", env.Code, env.Text, p)
		}
	}
}

func ptr[T any](v T) *T { return &v }

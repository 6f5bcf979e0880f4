// Package mcphost starts MCP servers (stdio, with the official Go SDK) and
// calls their tools on behalf of the tool catalog, and converts a server's
// input schemas into the tool contract's (ImportSchema, schema_import.go).
//
// Guarantees: a server is started when its tools are first needed and at
// most once at a time; its stderr goes to the log line by line; a server
// that stops (crashes, exits, breaks its pipe) is restarted once, and after
// a second stop it is unavailable for the rest of the Host's life, with
// errors that say so. Close stops every server (stdin closed, then SIGTERM,
// then kill, as the SDK's command transport does).
//
// Tools keep their title and annotations (ToolInfo). A tool that runs only
// as an MCP task (execution.taskSupport "required") is left out, with a
// warning in the log: whale-ls does not run tasks. A result's text is its
// text content, with a line that describes each other item (image, audio,
// resource link, embedded resource), and those items are kept as sent
// (Result.Media). A JSON-RPC error the server answers a call with is a
// *ToolError. A call whose context asks for progress (WithProgress) gives
// the server a progress token and passes its progress notifications on.
// A server's log messages (notifications/message, level info and up) go to
// the Host's log, as its stderr does.
//
// Limits: only stdio servers are supported; the tool list is read once per
// start (tools/list_changed is not followed). The package knows nothing
// about LSP or the catalog.
package mcphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerConfig is one entry of the mcp.servers setting.
type ServerConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Dir is the working folder of the server (the host's default if empty).
	Dir string `json:"cwd,omitempty"`
	// Deferred servers' tools stay hidden until a search finds them or a
	// call names one exactly.
	Deferred bool `json:"deferred,omitempty"`
}

// ToolInfo describes one tool of a server.
type ToolInfo struct {
	Server      string
	Name        string
	Description string
	// InputSchema is the server's JSON Schema for the arguments.
	InputSchema json.RawMessage
	// ReadOnly is the server's readOnlyHint annotation.
	ReadOnly bool
	// Title is the tool's title for people (the tool's own, else its
	// annotations'); empty when the server gave none.
	Title string
	// Destructive, Idempotent and OpenWorld are the server's other hints
	// (destructiveHint, idempotentHint, openWorldHint); nil when not given,
	// which MCP reads as true for Destructive and OpenWorld.
	Destructive, OpenWorld *bool
	Idempotent             bool
}

// Result is a tool's answer: its text, with every content item that is not
// text described in a line of it, and those items themselves in Media.
type Result struct {
	Text string
	// Media are the content items that are not text (images, audio,
	// resource links, embedded resources), as the server sent them.
	Media []mcp.Content
	// IsError is the server's own verdict: the tool ran and failed.
	IsError bool
	// Structured is the structured content, if the server sent one.
	Structured any
}

// Errors of Host methods. Use errors.Is.
var (
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("no MCP server of that name is configured")
	// ErrUnavailable: the server stopped twice (or could not restart) and
	// is not started again in this session.
	ErrUnavailable = errors.New("the MCP server is unavailable")
)

// StoppedError says a server stopped while it was being used. Restarted
// tells whether it was started again (the next call may succeed).
type StoppedError struct {
	Server    string
	Restarted bool
	Err       error
}

func (e *StoppedError) Error() string {
	if e.Restarted {
		return fmt.Sprintf("MCP server %s stopped during the call (%v) and was restarted", e.Server, e.Err)
	}
	return fmt.Sprintf("MCP server %s stopped during the call (%v) and is now unavailable", e.Server, e.Err)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// ToolError is a JSON-RPC error a server answered a call with (unknown
// tool, invalid arguments, …): the server is fine, the call was not.
type ToolError struct {
	Server, Tool string
	Code         int64
	Message      string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("MCP server %s refused the call to %s: %s (code %d)", e.Server, e.Tool, e.Message, e.Code)
}

// Options configure a Host.
type Options struct {
	Log *slog.Logger
	// Dir is the working folder servers start in unless their config names one.
	Dir string
	// Roots are the workspace folders (absolute paths), which a server
	// that asks (roots/list) is told.
	Roots []string
	// Version is reported to servers as the client's version.
	Version string
	// StartTimeout bounds starting a server and listing its tools (20s if 0).
	StartTimeout time.Duration
}

// Host owns the configured servers of one session.
type Host struct {
	opts    Options
	log     *slog.Logger
	names   []string
	servers map[string]*server

	// progress maps the progress token of each call in flight that asked
	// for progress (WithProgress) to its callback.
	progress sync.Map // string → func(Progress)
	tokens   atomic.Int64
}

// Progress is a notifications/progress a server sent about a call.
type Progress struct {
	Progress, Total float64 // Total is 0 when the server did not say
	Message         string
}

type progressKey struct{}

// WithProgress returns a context whose Host.Call gives the server a
// progressToken and passes each of its progress notifications for the call
// to f, until Call returns.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// onProgress routes a server's notifications/progress to its call.
func (h *Host) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req.Params == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	if f, ok := h.progress.Load(token); ok {
		f.(func(Progress))(Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}

// New prepares a Host; no server is started yet.
func New(configs map[string]ServerConfig, opts Options) *Host {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 20 * time.Second
	}
	h := &Host{opts: opts, log: opts.Log, servers: map[string]*server{}}
	for name, cfg := range configs {
		h.names = append(h.names, name)
		h.servers[name] = &server{name: name, cfg: cfg, host: h}
	}
	sort.Strings(h.names)
	return h
}

// Servers returns the configured server names, sorted.
func (h *Host) Servers() []string { return append([]string(nil), h.names...) }

// Config returns a server's configuration.
func (h *Host) Config(name string) (ServerConfig, bool) {
	s, ok := h.servers[name]
	if !ok {
		return ServerConfig{}, false
	}
	return s.cfg, true
}

// Tools returns a server's tools, starting it if needed.
func (h *Host) Tools(ctx context.Context, name string) ([]ToolInfo, error) {
	s, ok := h.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureLocked(ctx); err != nil {
		return nil, err
	}
	return append([]ToolInfo(nil), s.tools...), nil
}

// Call calls a tool with arguments (a JSON object), sent as they are. A server that stops
// during the call is restarted once (the call is not repeated: it may have
// had effects) and the error is a *StoppedError.
func (h *Host) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	s, ok := h.servers[server]
	if !ok {
		return Result{}, fmt.Errorf("%w: %q", ErrUnknownServer, server)
	}
	s.mu.Lock()
	if err := s.ensureLocked(ctx); err != nil {
		s.mu.Unlock()
		return Result{}, err
	}
	sess, gen := s.session, s.gen
	s.mu.Unlock()

	arguments, err := objectArguments(args)
	if err != nil {
		return Result{}, err
	}
	// Servers of protocol 2026-07-28 and later take the log level per
	// request (earlier ones were told at start: see start).
	//lint:ignore SA1019 logging is deprecated from protocol 2026-07-28, and servers of the versions before and during its deprecation still log.
	params := &mcp.CallToolParams{Name: tool, Arguments: arguments, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
	if f, ok := ctx.Value(progressKey{}).(func(Progress)); ok && f != nil {
		token := fmt.Sprintf("whale-%d", h.tokens.Add(1))
		params.SetProgressToken(token)
		h.progress.Store(token, f)
		defer h.progress.Delete(token)
	}
	res, err := sess.CallTool(ctx, params)
	if err == nil {
		return reduce(res), nil
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return Result{}, &ToolError{Server: server, Tool: tool, Code: wire.Code, Message: wire.Message}
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	// The connection failed: the server stopped.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen { // another call already handled this stop
		return Result{}, &StoppedError{Server: server, Restarted: s.session != nil, Err: err}
	}
	s.stoppedLocked(err)
	restarted := false
	if !s.unavailable {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.opts.StartTimeout)
		restarted = s.ensureLocked(rctx) == nil
		cancel()
	}
	return Result{}, &StoppedError{Server: server, Restarted: restarted, Err: err}
}

// objectArguments checks that args is one JSON object and returns it to be
// sent byte for byte: null values, the spelling of numbers and the order of
// fields reach the server as the caller wrote them. Empty args are {}.
func objectArguments(args json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, errors.New("arguments must be one JSON object")
	}
	return json.RawMessage(trimmed), nil
}

// Close stops every running server and waits for them, within
// stopWithin: each is told by the end of its input, then SIGTERM, and
// whatever is left of its process group is killed.
func (h *Host) Close() {
	var wg sync.WaitGroup
	for _, s := range h.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			s.closed = true
			if s.session != nil {
				stop(s.session, s.pid)
				s.session = nil
			}
		}()
	}
	wg.Wait()
}

// The steps of stop: the end of input, then SIGTERM, each given
// terminateAfter; then the group is killed. `whale-ls mcp` gives its whole
// session 600 ms to close once its client left (it exits within a second),
// so the whole stays under that.
const (
	terminateAfter = 150 * time.Millisecond
	stopWithin     = 3*terminateAfter + 100*time.Millisecond
)

// stop ends a server's session and its process group: the SDK closes its
// input, waits, sends SIGTERM and waits again; whatever still runs in the
// group then — the server, or children it started — is killed.
func stop(sess *mcp.ClientSession, pid int) {
	done := make(chan struct{})
	go func() {
		sess.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopWithin):
	}
	killGroup(pid)
}

// server is one configured MCP server.
type server struct {
	name string
	cfg  ServerConfig
	host *Host

	mu          sync.Mutex
	session     *mcp.ClientSession // nil when not running
	pid         int                // the session's process, leader of its group
	gen         int                // counts starts, to tell stops apart
	tools       []ToolInfo
	starts      int
	unavailable bool
	lastErr     error
	closed      bool
}

// maxStarts is the first start plus one restart.
const maxStarts = 2

// ensureLocked starts the server if it is not running and may still be.
func (s *server) ensureLocked(ctx context.Context) error {
	if s.session != nil {
		return nil
	}
	if s.closed {
		return fmt.Errorf("%w: %s (the session is ending)", ErrUnavailable, s.name)
	}
	if s.unavailable {
		return fmt.Errorf("%w: %s stopped and was restarted once already (last error: %v)", ErrUnavailable, s.name, s.lastErr)
	}
	if s.starts >= maxStarts {
		s.unavailable = true
		return fmt.Errorf("%w: %s stopped and was restarted once already (last error: %v)", ErrUnavailable, s.name, s.lastErr)
	}
	s.starts++
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, s.host.opts.StartTimeout)
	defer cancel()
	sess, tools, err := s.start(ctx)
	if err != nil && caller.Err() != nil {
		// The caller gave up (a cancelled call or search): that says
		// nothing about the server, so the start does not count.
		s.starts--
		return fmt.Errorf("start MCP server %s: %w", s.name, caller.Err())
	}
	if err != nil {
		s.lastErr = err
		if s.starts >= maxStarts {
			s.unavailable = true
			return fmt.Errorf("%w: %s could not be started again (%v)", ErrUnavailable, s.name, err)
		}
		return fmt.Errorf("start MCP server %s: %w", s.name, err)
	}
	s.session, s.tools = sess, tools
	s.gen++
	return nil
}

// stoppedLocked forgets a session whose connection failed.
func (s *server) stoppedLocked(err error) {
	s.host.log.Warn("MCP server stopped", "server", s.name, "err", err)
	s.lastErr = err
	if s.session != nil {
		go stop(s.session, s.pid) // reaps the process; it may take the terminate delay
		s.session = nil
	}
	if s.starts >= maxStarts {
		s.unavailable = true
	}
}

// start runs the command, connects and lists the tools.
func (s *server) start(ctx context.Context) (*mcp.ClientSession, []ToolInfo, error) {
	if s.cfg.Command == "" {
		return nil, nil, errors.New("no command is configured")
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.cfg.Dir
	if cmd.Dir == "" {
		cmd.Dir = s.host.opts.Dir
	}
	cmd.Env = serverEnv(os.Environ())
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+os.ExpandEnv(v))
	}
	cmd.Stderr = &stderrLog{log: s.host.log, server: s.name}
	ownGroup(cmd)
	client := mcp.NewClient(&mcp.Implementation{Name: "whale-ls", Version: s.host.opts.Version}, &mcp.ClientOptions{
		ProgressNotificationHandler: s.host.onProgress,
		//lint:ignore SA1019 logging is deprecated from protocol 2026-07-28, and servers of the versions before and during its deprecation still log.
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if p := req.Params; p != nil {
				s.host.log.Info("MCP server log", "server", s.name, "level", p.Level, "logger", p.Logger, "data", p.Data)
			}
		},
	})
	for _, r := range s.host.opts.Roots {
		//lint:ignore SA1019 roots are deprecated from protocol 2026-07-28, and servers of the versions before still ask.
		client.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(r)}).String(), Name: filepath.Base(r)})
	}
	tap := &listTap{Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}}
	sess, err := client.Connect(ctx, tap, nil)
	if cmd.Process != nil {
		s.pid = cmd.Process.Pid
	}
	if err != nil {
		if cmd.Process != nil {
			killGroup(cmd.Process.Pid)
		}
		return nil, nil, err
	}
	//lint:ignore SA1019 logging is deprecated from protocol 2026-07-28, and servers of the versions before and during its deprecation still log.
	if caps := sess.InitializeResult().Capabilities; caps != nil && caps.Logging != nil {
		// Servers send no log messages until the client sets a level.
		//lint:ignore SA1019 logging is deprecated from protocol 2026-07-28, and servers of the versions before and during its deprecation still log.
		if err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			s.host.log.Debug("MCP server's log level not set", "server", s.name, "err", err)
		}
	}
	var tools []ToolInfo
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			stop(sess, s.pid)
			return nil, nil, fmt.Errorf("list tools: %w", err)
		}
		if tap.taskSupport(t.Name) == "required" {
			s.host.log.Warn("MCP tool left out: it runs only as an MCP task (execution.taskSupport is required), which whale-ls does not run", "server", s.name, "tool", t.Name)
			continue
		}
		schema, _ := json.Marshal(t.InputSchema)
		info := ToolInfo{Server: s.name, Name: t.Name, Description: t.Description, InputSchema: schema, Title: t.Title}
		if a := t.Annotations; a != nil {
			info.ReadOnly, info.Destructive, info.Idempotent, info.OpenWorld = a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint
			if info.Title == "" {
				info.Title = a.Title
			}
		}
		tools = append(tools, info)
	}
	s.host.log.Info("MCP server started", "server", s.name, "tools", len(tools))
	return sess, tools, nil
}

// reduce turns a CallToolResult into text — text content as is, other
// content kinds described in one line each, saying that the text does not
// hold them — and keeps those other items in Media.
func reduce(r *mcp.CallToolResult) Result {
	var parts []string
	var media []mcp.Content
	const elsewhere = "not in this text; clients of whale-ls mcp receive it as is"
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			continue
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes: %s]", c.MIMEType, len(c.Data), elsewhere))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes: %s]", c.MIMEType, len(c.Data), elsewhere))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s: %s]", c.Name, c.URI))
		case *mcp.EmbeddedResource:
			switch {
			case c.Resource != nil && c.Resource.Text != "":
				parts = append(parts, c.Resource.Text)
			case c.Resource != nil:
				parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes: %s]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob), elsewhere))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content: not in this text]", c))
		}
		media = append(media, c)
	}
	text := strings.Join(parts, "\n")
	if text == "" && r.StructuredContent != nil {
		if b, err := json.MarshalIndent(r.StructuredContent, "", "  "); err == nil {
			text = string(b)
		}
	}
	return Result{Text: text, Media: media, IsError: r.IsError, Structured: r.StructuredContent}
}

// listTap passes a transport's messages through and records, from the
// results of tools/list, each tool's execution.taskSupport, which the SDK's
// Tool type does not hold.
type listTap struct {
	mcp.Transport

	mu      sync.Mutex
	lists   map[jsonrpc.ID]bool // tools/list requests sent, not answered yet
	support map[string]string   // tool name → taskSupport
}

func (t *listTap) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, tap: t}, nil
}

// taskSupport is the tool's execution.taskSupport as listed ("" if none).
func (t *listTap) taskSupport(tool string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.support[tool]
}

type tapConn struct {
	mcp.Connection
	tap *listTap
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.IsCall() {
		c.tap.mu.Lock()
		if c.tap.lists == nil {
			c.tap.lists = map[jsonrpc.ID]bool{}
		}
		c.tap.lists[req.ID] = true
		c.tap.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return msg, err
	}
	c.tap.mu.Lock()
	defer c.tap.mu.Unlock()
	if !c.tap.lists[resp.ID] {
		return msg, err
	}
	delete(c.tap.lists, resp.ID)
	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if resp.Result != nil && json.Unmarshal(resp.Result, &list) == nil {
		if c.tap.support == nil {
			c.tap.support = map[string]string{}
		}
		for _, tool := range list.Tools {
			c.tap.support[tool.Name] = tool.Execution.TaskSupport
		}
	}
	return msg, err
}

// stderrLog writes a server's stderr to the log, one record per line.
type stderrLog struct {
	log    *slog.Logger
	server string

	mu  sync.Mutex
	buf []byte
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		w.emit(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 8<<10 { // a very long line: log what we have
		w.emit(string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *stderrLog) emit(line string) {
	if line = strings.TrimRight(line, "\r"); line != "" {
		w.log.Info("MCP server stderr", "server", w.server, "line", line)
	}
}

var _ io.Writer = (*stderrLog)(nil)

// serverEnv keeps of whale's environment what a server needs to run and
// reach the network — the search path, home, user and shell, temp folder,
// locale and time zone, proxies and CA bundles, the XDG folders, and the
// variables Windows programs need — and nothing else: a variable set for
// whale (a token, say) reaches a server only through its configured env.
func serverEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if passedOn[up] || strings.HasPrefix(up, "LC_") || strings.HasPrefix(up, "XDG_") {
			out = append(out, kv)
		}
	}
	return out
}

// passedOn are the variables serverEnv keeps, upper-cased (Windows names
// are not case-sensitive; proxies are spelt both ways on Unix).
var passedOn = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TMPDIR": true,
	"LANG": true, "LANGUAGE": true, "TZ": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true,
	// Windows
	"SYSTEMROOT": true, "SYSTEMDRIVE": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"USERPROFILE": true, "USERNAME": true, "APPDATA": true, "LOCALAPPDATA": true, "PROGRAMDATA": true,
	"PROGRAMFILES": true, "PROGRAMFILES(X86)": true, "COMMONPROGRAMFILES": true, "TEMP": true, "TMP": true,
	"HOMEDRIVE": true, "HOMEPATH": true, "COMPUTERNAME": true, "NUMBER_OF_PROCESSORS": true, "PROCESSOR_ARCHITECTURE": true,
}

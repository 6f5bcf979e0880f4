// Package mcpfront serves whale's tool catalog over the Model Context
// Protocol, for AI chats that speak MCP rather than LSP. Every catalog tool
// becomes an MCP tool with the same name, description and input schema; a
// call goes through the same Dispatch (repair, validation, Envelope) of a
// Backend, and its result is the Envelope's text, prefixed "code: " for a
// failed call, with isError set then. The Envelope's code, repairs and
// truncation travel in the result's _meta ("whale/code", "whale/repairs",
// "whale/truncated"); the whole Envelope is the structured content only
// when Options.StructuredContent asks for it, because hosts that find
// structured content send it to the model instead of the text. No tool
// declares an outputSchema, so structured content stays optional.
//
// A proxied MCP tool keeps its title and annotations (readOnlyHint,
// destructiveHint, idempotentHint, openWorldHint), and its result's images,
// audio, resource links and embedded resources follow the text as the
// server sent them (Envelope.Media).
//
// A call that takes longer than about a second, when the client gave a
// progressToken, gets notifications/progress every second ("still
// running") until it returns; the last comes before the result.
//
// The server advertises the tools capability only, and answers the methods
// of the others (resources, prompts, completions, logging) -32601.
// Serve keeps JSON-RPC and MCP's rules on stdio where the SDK's transport
// ends the session or answers wrongly: see stdioConn and depthGuard.
//
// ServeOn serves the same server over MCP Streamable HTTP (Handler): every
// client gets its own session, with the SDK's SSE streams and resumption,
// behind a bearer token and Host and Origin checks; Listen refuses an
// address that is not loopback unless told otherwise.
//
// Not guaranteed: Run, over another transport, gets the capability rule and
// progress but not the line rules (parse errors, batches, depth, requests
// before initialize, silence after a cancel): those are the transport's.
// No protocol version gets batches, although 2025-03-26 had them. A
// response already on its way when the cancel arrives is still sent. The
// progress is a heartbeat, not a measure of the work done.
//
// A call of a name the server does not list yet still goes to the Backend,
// which may activate the tool (a deferred MCP tool called by its exact
// name) or answer unknown_tool with the closest names; after an activation
// the list is refreshed, so that clients get tools/list_changed before the
// call's result. The SDK's own "unknown tool" protocol error is never sent.
//
// The Backend is either this process's own registry (standalone: disk edits,
// approvals by rule) or a running language server reached through package
// attach (edits land in the editor's buffers). The package does not decide
// which; the command line does.
//
// Lifetime: a call's context ends when the client cancels it
// (notifications/cancelled), when the client goes away (end of input, or its
// end of the output closed) and when the context given to Run or Serve ends.
// Run and Serve then return within a short grace period even if a tool has
// not returned yet; the caller is expected to release its session and exit.
package mcpfront

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// Backend runs tools: the local registry or an attached server.
type Backend interface {
	Tools(ctx context.Context) ([]toolbridge.Spec, error)
	Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error)
}

// Local adapts a Registry (this process's own session) to a Backend.
type Local struct {
	Registry *toolbridge.Registry
	// Agent names the agent whose model calls the tools (whale-ls mcp
	// --agent), for the journal's titles; "" leaves them unnamed.
	Agent string
}

// Tools lists the registry's frozen specs.
func (l Local) Tools(context.Context) ([]toolbridge.Spec, error) { return l.Registry.Specs(), nil }

// Call dispatches one call.
func (l Local) Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error) {
	return l.Registry.Dispatch(ctx, toolbridge.Call{Name: name, Input: input, Agent: l.Agent}), nil
}

// Options configure a Server.
type Options struct {
	// Version is the server's version in initialize's serverInfo.
	Version string
	// Instructions are initialize's instructions for the client.
	Instructions string
	// Log receives the server's warnings; nil discards them.
	Log *slog.Logger
	// StructuredContent puts the whole Envelope in each tool result's
	// structuredContent, for clients that read it (whale-ls mcp
	// --structured). Off, the result has the text only: Claude Code, Codex
	// CLI and Copilot CLI give the model the structured content, as
	// escaped JSON, instead of the text when it is there.
	StructuredContent bool
	// ProgressEvery is how long a call runs before its first progress
	// notification, and the time between the next ones; 0 means a second.
	ProgressEvery time.Duration
}

// Server is an MCP server over a Backend. Run and Serve serve one session,
// ServeOn any number over HTTP; when one of them returns, the server's
// calls are canceled for good.
type Server struct {
	backend Backend
	mcp     *mcp.Server
	log     *slog.Logger
	opts    Options

	// calls is the parent of every call's context: Run and Serve cancel it
	// when the session ends.
	calls    context.Context
	endCalls context.CancelFunc

	mu    sync.Mutex
	known map[string]bool // tools already added
}

// New builds the MCP server and adds the backend's tools.
func New(ctx context.Context, b Backend, o Options) (*Server, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = time.Second
	}
	s := &Server{
		backend: b,
		log:     o.Log,
		opts:    o,
		known:   map[string]bool{},
		mcp: mcp.NewServer(&mcp.Implementation{Name: "whale-ls", Version: o.Version}, &mcp.ServerOptions{
			Instructions: o.Instructions,
			// Tools only: the SDK would advertise logging, which whale
			// does not send.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		}),
	}
	s.calls, s.endCalls = context.WithCancel(context.Background())
	s.mcp.AddReceivingMiddleware(advertisedOnly, s.unlistedCalls)
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// advertisedOnly answers -32601 (method not found) to the methods of
// capabilities the server does not advertise; the SDK would answer them
// (an empty resources/list, for example).
func advertisedOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if unadvertised(method) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: methodNotFound(method)}
		}
		return next(ctx, method, req)
	}
}

// unlistedCalls sends tools/call requests for names not served yet to the
// Backend instead of the SDK (which would answer a protocol error), and
// refreshes the list when the Backend knew the name, so that a tool it
// activated on demand is listed, and announced, before the result returns.
func (s *Server) unlistedCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil || s.served(call.Params.Name) {
			return next(ctx, method, req)
		}
		res, env := s.run(ctx, call.Params.Name, call)
		if env.Code != toolbridge.CodeUnknownTool {
			if err := s.Refresh(ctx); err != nil {
				s.log.Warn("tools not refreshed after a call activated one", "tool", call.Params.Name, "err", err)
			}
		}
		return res, nil
	}
}

// served reports whether a tool of this name was added to the MCP server.
func (s *Server) served(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.known[name]
}

// Refresh adds the backend's tools that are not served yet; the SDK then
// sends notifications/tools/list_changed to connected clients. Specs never
// change, so tools already served are left as they are.
func (s *Server) Refresh(ctx context.Context) error {
	specs, err := s.backend.Tools(ctx)
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, spec := range specs {
		if s.known[spec.Name] {
			continue
		}
		s.known[spec.Name] = true
		raw, err := json.Marshal(spec.InputSchema)
		if err != nil {
			return err
		}
		schema, repaired, err := objectSchema(raw)
		if err != nil {
			s.log.Warn("tool left out: its input schema cannot be served over MCP", "tool", spec.Name, "err", err)
			continue
		}
		if repaired != "" {
			s.log.Warn("tool's input schema repaired", "tool", spec.Name, "repair", repaired)
		}
		tool := &mcp.Tool{
			Name:        spec.Name,
			Title:       spec.Title,
			Description: spec.Description,
			InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: spec.ReadOnly, Title: spec.Title},
		}
		if h := spec.Hints; h != nil {
			tool.Annotations.DestructiveHint, tool.Annotations.IdempotentHint, tool.Annotations.OpenWorldHint = h.Destructive, h.Idempotent, h.OpenWorld
		}
		name := spec.Name
		if err := s.addTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, _ := s.run(ctx, name, req)
			return res, nil
		}); err != nil {
			s.log.Warn("tool left out: the MCP server refused it", "tool", spec.Name, "err", err)
		}
	}
	return nil
}

// addTool adds a tool; the SDK panics on a tool it cannot serve (a bad
// name or schema), which here is an error, never the end of the server.
func (s *Server) addTool(tool *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.mcp.AddTool(tool, h)
	return nil
}

// objectSchema checks that raw is what MCP requires of a tool's input
// schema — a JSON object whose type is "object" — and repairs the two
// shapes whose meaning is clear: no schema at all (no arguments) and an
// object without "type". repaired says which repair was made.
func objectSchema(raw []byte) (schema json.RawMessage, repaired string, err error) {
	if string(raw) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`), "no schema: taken as one without arguments", nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, "", fmt.Errorf("the schema is not a JSON object: %.60s", raw)
	}
	switch t := string(obj["type"]); t {
	case `"object"`:
		return raw, "", nil
	case "":
		obj["type"] = json.RawMessage(`"object"`)
		fixed, err := json.Marshal(obj)
		return fixed, `no "type": taken as "object"`, err
	default:
		return nil, "", fmt.Errorf("the schema's type is %s, and MCP needs \"object\"", t)
	}
}

// run calls the tool through the Backend and returns the MCP result and
// the Envelope it carries.
func (s *Server) run(ctx context.Context, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, toolbridge.Envelope) {
	var input json.RawMessage
	var token any
	if req.Params != nil {
		input = req.Params.Arguments
		token = req.Params.GetProgressToken()
	}
	// The SDK cancels ctx on notifications/cancelled and when the input
	// ends, but not when the server is told to stop.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.calls, cancel)()
	if token != nil && req.Session != nil {
		report, stop := s.reportProgress(ctx, req.Session, token, name)
		defer stop()
		ctx = toolbridge.WithProgress(ctx, report)
	}
	env, err := s.backend.Call(ctx, name, input)
	switch {
	case err != nil && ctx.Err() != nil:
		env = toolbridge.Envelope{Code: toolbridge.CodeCanceled, Text: "the call was canceled before the whale-ls session that runs the tools answered"}
	case err != nil:
		env = toolbridge.Envelope{Code: toolbridge.CodeInternal, Text: fmt.Sprintf("the whale-ls session that runs the tools did not answer (%v); call the tool again, or restart the MCP server", err)}
	}
	return toolResult(env, s.opts.StructuredContent), env
}

// toolResult is the MCP form of an Envelope: its text ("code: text" for a
// failure), isError, the code, repairs and truncation in _meta, and the
// Envelope itself as structured content when structured is set.
func toolResult(env toolbridge.Envelope, structured bool) *mcp.CallToolResult {
	text := env.Text
	if !env.OK && env.Code != "" {
		text = env.Code + ": " + text
	}
	meta := mcp.Meta{MetaCode: env.Code, MetaTruncated: env.Truncated}
	if len(env.Repairs) > 0 {
		meta[MetaRepairs] = env.Repairs
	}
	res := &mcp.CallToolResult{
		Meta:    meta,
		Content: append([]mcp.Content{&mcp.TextContent{Text: text}}, mediaContent(env.Media)...),
		IsError: !env.OK,
	}
	if structured {
		res.StructuredContent = env
	}
	return res
}

// mediaContent decodes an Envelope's Media, MCP content items as their
// server sent them, to be passed on as they are; an item the SDK cannot
// decode is left out (the text still describes it).
func mediaContent(media []json.RawMessage) []mcp.Content {
	if len(media) == 0 {
		return nil
	}
	raw, err := json.Marshal(map[string]any{"content": media})
	if err != nil {
		return nil
	}
	var res mcp.CallToolResult
	if json.Unmarshal(raw, &res) == nil {
		return res.Content
	}
	var out []mcp.Content // one bad item: keep the others
	for _, m := range media {
		var one mcp.CallToolResult
		if json.Unmarshal([]byte(`{"content":[`+string(m)+`]}`), &one) == nil {
			out = append(out, one.Content...)
		}
	}
	return out
}

// The keys of a tool result's _meta.
const (
	MetaCode      = "whale/code"      // the Envelope's code: ok, not_found, write_conflict, …
	MetaRepairs   = "whale/repairs"   // the input repairs, when there were any
	MetaTruncated = "whale/truncated" // whether the text was cut
)

// reportProgress sends notifications/progress for token every
// ProgressEvery while the call runs, the first after ProgressEvery, and one
// for each message the tool reports (report; a proxied MCP server's own
// progress). The returned stop ends both and returns once no notification
// is being sent any more, so that none follows the result.
func (s *Server) reportProgress(ctx context.Context, ss *mcp.ServerSession, token any, name string) (report toolbridge.ProgressFunc, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex // held while a notification is sent: they go in order, and none after stop
	n, stopped := 0, false
	send := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		n++
		if err := ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg}); err != nil {
			s.log.Debug("progress not sent", "tool", name, "err", err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		tick := time.NewTicker(s.opts.ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			send(fmt.Sprintf("%s still running after %s", name, time.Since(start).Round(time.Second)))
		}
	}()
	return send, func() {
		cancel()
		<-done
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}

// How long Run and Serve wait, after the session ended, for the calls they
// canceled to return and be answered.
const (
	// ClientGoneGrace applies when the client went away.
	ClientGoneGrace = 300 * time.Millisecond
	// StopGrace applies when the context ended (SIGTERM, SIGINT).
	StopGrace = 500 * time.Millisecond
)

// Run serves the MCP protocol on t until the client leaves or ctx ends,
// then cancels every call in flight and returns within ClientGoneGrace
// (StopGrace when ctx ended), whether or not the tools have returned. It
// notices that the client left only when the SDK's session ends, which
// waits for the calls the SDK canceled; Serve notices at once.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.serve(ctx, t, nil)
}

// Serve serves the MCP protocol as newline-delimited JSON on in and out
// (the stdio transport) like Run, and knows the client is gone as soon as
// in ends or a write to out fails. Unlike the SDK's stdio transport it
// answers what is not a message for the SDK (a line that is not JSON, a
// batch, a message nested too deep, a request before initialize) with a
// JSON-RPC error and goes on, and it sends no response to a request the
// client cancelled: see stdioConn and depthGuard.
func (s *Server) Serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	gone := &clientGone{ch: make(chan struct{})}
	lw := &lockedWriter{w: out}
	guard := newDepthGuard(in, lw)
	guard.structured = s.opts.StructuredContent
	conn := newStdioConn(goneReader{guard, gone}, goneWriter{lw, gone})
	return s.serve(ctx, stdioTransport{conn}, gone.ch)
}

func (s *Server) serve(ctx context.Context, t mcp.Transport, gone <-chan struct{}) error {
	defer s.endCalls()
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	grace := ClientGoneGrace
	select {
	case err := <-ended:
		return err
	case <-gone:
	case <-ctx.Done():
		grace = StopGrace
	}
	s.endCalls()
	go ss.Close() // waits for the calls in flight, then closes t
	select {
	case <-ended:
	case <-time.After(grace):
		s.log.Warn("calls still running after cancellation; stopping without their answers")
	}
	return ctx.Err()
}

// clientGone is closed, once, when the client's input ends or a write to
// it fails.
type clientGone struct {
	once sync.Once
	ch   chan struct{}
}

func (g *clientGone) close() { g.once.Do(func() { close(g.ch) }) }

// goneReader reports the end of the client's input (EOF or an error).
type goneReader struct {
	io.ReadCloser
	gone *clientGone
}

func (r goneReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil {
		r.gone.close()
	}
	return n, err
}

// goneWriter reports a failed write to the client (EPIPE: it closed its
// end).
type goneWriter struct {
	io.WriteCloser
	gone *clientGone
}

func (w goneWriter) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	if err != nil {
		w.gone.close()
	}
	return n, err
}

// Package mcpfront serves whale's tool catalog over the Model Context
// Protocol, for AI chats that speak MCP rather than LSP. Every catalog tool
// becomes an MCP tool with the same name, description and input schema; a
// call goes through the same Dispatch (repair, validation, Envelope) of a
// Backend, and its result is the Envelope's text, with isError for a failed
// call and the whole Envelope as structured content.
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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// Backend runs tools: the local registry or an attached server.
type Backend interface {
	Tools(ctx context.Context) ([]toolbridge.Spec, error)
	Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error)
}

// Local adapts a Registry (this process's own session) to a Backend.
type Local struct{ Registry *toolbridge.Registry }

// Tools lists the registry's frozen specs.
func (l Local) Tools(context.Context) ([]toolbridge.Spec, error) { return l.Registry.Specs(), nil }

// Call dispatches one call.
func (l Local) Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error) {
	return l.Registry.Dispatch(ctx, toolbridge.Call{Name: name, Input: input}), nil
}

// Server is an MCP server over a Backend. It serves one session: when Run
// or Serve returns, its calls are canceled for good.
type Server struct {
	backend Backend
	mcp     *mcp.Server
	log     *slog.Logger

	// calls is the parent of every call's context: Run and Serve cancel it
	// when the session ends.
	calls    context.Context
	endCalls context.CancelFunc

	mu    sync.Mutex
	known map[string]bool // tools already added
}

// New builds the MCP server and adds the backend's tools.
func New(ctx context.Context, b Backend, version, instructions string, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		backend: b,
		log:     log,
		known:   map[string]bool{},
		mcp: mcp.NewServer(&mcp.Implementation{Name: "whale-ls", Version: version}, &mcp.ServerOptions{
			Instructions: instructions,
		}),
	}
	s.calls, s.endCalls = context.WithCancel(context.Background())
	s.mcp.AddReceivingMiddleware(s.unlistedCalls)
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
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
		schema, err := json.Marshal(spec.InputSchema)
		if err != nil {
			return err
		}
		tool := &mcp.Tool{
			Name:        spec.Name,
			Description: spec.Description,
			InputSchema: json.RawMessage(schema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: spec.ReadOnly},
		}
		name := spec.Name
		s.mcp.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, _ := s.run(ctx, name, req)
			return res, nil
		})
	}
	return nil
}

// run calls the tool through the Backend and returns the MCP result and
// the Envelope it carries.
func (s *Server) run(ctx context.Context, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, toolbridge.Envelope) {
	var input json.RawMessage
	if req.Params != nil {
		input = req.Params.Arguments
	}
	// The SDK cancels ctx on notifications/cancelled and when the input
	// ends, but not when the server is told to stop.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.calls, cancel)()
	env, err := s.backend.Call(ctx, name, input)
	switch {
	case err != nil && ctx.Err() != nil:
		env = toolbridge.Envelope{Code: toolbridge.CodeCanceled, Text: "the call was canceled before the whale-ls session that runs the tools answered"}
	case err != nil:
		env = toolbridge.Envelope{Code: toolbridge.CodeInternal, Text: fmt.Sprintf("the whale-ls session that runs the tools did not answer (%v); call the tool again, or restart the MCP server", err)}
	}
	text := env.Text
	if !env.OK && env.Code != "" {
		text = env.Code + ": " + text
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		IsError:           !env.OK,
		StructuredContent: env,
	}, env
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
// in ends or a write to out fails. A message nested deeper than the SDK
// decodes is answered with invalid_input instead of ending the session.
func (s *Server) Serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	gone := &clientGone{ch: make(chan struct{})}
	lw := &lockedWriter{w: out}
	t := &mcp.IOTransport{Reader: goneReader{newDepthGuard(in, lw), gone}, Writer: goneWriter{lw, gone}}
	return s.serve(ctx, t, gone.ch)
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

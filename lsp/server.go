package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// Options configure a Server.
type Options struct {
	In     io.Reader
	Out    io.Writer
	Closer io.Closer // closes In/Out when the server stops; may be nil
	Log    *slog.Logger
	// DefaultRoot is the workspace folder used when the client names none.
	DefaultRoot string
	// MaxMessageBytes bounds one incoming message (DefaultMaxMessageBytes if 0).
	MaxMessageBytes int
	Version         string
	// Supervisor is the argv prefix that runs a task supervisor (see
	// terminal.Options.Supervisor); empty runs shells directly.
	Supervisor []string
	// ExtraTools adds tools to the catalog of each session (tests use it to
	// register tools that wait on purpose).
	ExtraTools func(env catalog.Env) []toolbridge.Tool
}

// Server is one language-server session over one connection.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn
	docs *overlay

	exited chan struct{} // closed by the exit notification

	inflightMu sync.Mutex
	inflight   map[jsonrpc2.ID]context.CancelFunc

	prompts promptBroker
	inputs  inputQueues

	mu       sync.Mutex
	state    serverState
	session  *session.Session
	registry *toolbridge.Registry
	caps     clientCaps
	enc      string
	exitCode int
	attached *attach.Listener // nil when the attach socket could not be opened
}

type serverState int

const (
	stateNew serverState = iota
	stateRunning
	stateShutdown
)

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	workDoneProgress bool
	showMessageReq   bool
	terminals        bool
	prompts          bool
	saveDocuments    bool
	languageFeatures bool
}

// How long Run takes, at most, from the moment the session ends to its
// return: the client went away (end of input, or its end of the output
// closed) or sent exit, or ctx ended (SIGTERM, SIGINT). A third of it is
// for the calls in flight, which are canceled, to return and be answered;
// the rest is for ending the session's shell tasks and releasing the rest.
// What is not done by then is left to the process's exit: a tool that
// ignores cancellation does not keep a session alive that nobody talks to,
// and the task supervisors end their trees when the server is gone.
const (
	clientGoneBudget = 800 * time.Millisecond
	stopBudget       = 1600 * time.Millisecond
)

// Run serves one session until the client sends exit, closes the stream
// (end of input, or a write fails because it closed its end) or ctx ends.
// Then it cancels every call in flight, ends the session's tasks and
// returns within clientGoneBudget (stopBudget when ctx ended), even when a
// tool has not returned yet: the caller is expected to exit.
// It returns the process exit code the LSP specification asks for: 0 after
// shutdown+exit, 1 when the stream ended or exit came without shutdown.
func Run(ctx context.Context, opts Options) int {
	s := newServer(opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := newFrameStream(opts.In, opts.Out, opts.Closer, opts.MaxMessageBytes, s.log)
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(codec{}))
	s.conn.Go(ctx, s.handle)
	budget := clientGoneBudget
	select {
	case <-stream.ended:
		if err := stream.endErr; err != nil && !errors.Is(err, io.EOF) {
			s.log.Info("the client is gone", "err", err)
		}
	case <-s.conn.Done():
	case <-s.exited:
	case <-ctx.Done():
		budget = stopBudget
		s.log.Info("stopping", "cause", context.Cause(ctx))
	}
	deadline := time.Now().Add(budget)
	// Every call's context derives from ctx: cancel them all, then let the
	// connection answer them and close. Do not wait for the reader: it may
	// be blocked on stdin, which the caller owns.
	cancel()
	go s.conn.Close()
	select {
	case <-stream.closed:
	case <-time.After(budget / 3):
		s.log.Warn("calls still running after cancellation; stopping without their answers")
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.stop()
	}()
	select {
	case <-stopped:
	case <-time.After(time.Until(deadline)):
		s.log.Warn("the session's resources were not released in time; exiting anyway")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

func newServer(opts Options) *Server {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{opts: opts, log: log, docs: newOverlay(), exitCode: 1, enc: encUTF16, exited: make(chan struct{}), inflight: map[jsonrpc2.ID]context.CancelFunc{}}
}

// stop releases the session's resources.
func (s *Server) stop() {
	s.mu.Lock()
	sess, attached := s.session, s.attached
	s.mu.Unlock()
	if attached != nil {
		attached.Close()
	}
	if sess != nil {
		sess.Close() // MCP servers, every task tree, the workspace
	}
}

// handle routes one incoming message. Notifications run inline, in order;
// calls other than initialize and shutdown release the read loop and run
// concurrently. It never returns an error for a notification (that would
// end the connection) and never lets a panic escape.
//
// The request context of jsonrpc2 is pooled and must not outlive the
// handler, so work runs on a context derived from the connection's, with a
// cancel function registered under the call's id for $/cancelRequest.
func (s *Server) handle(reqCtx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := strings.Clone(req.Method())
	ctx, cancel := context.WithCancel(jsonrpc2.DetachContext(reqCtx))
	defer cancel()
	if !req.IsCall() {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("notification handler panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
			result, err = nil, nil
		}()
		s.notification(ctx, method, json.RawMessage(req.Params()))
		return nil, nil
	}
	id := req.ID()
	s.inflightMu.Lock()
	s.inflight[id] = cancel
	s.inflightMu.Unlock()
	defer func() {
		s.inflightMu.Lock()
		delete(s.inflight, id)
		s.inflightMu.Unlock()
	}()
	params := json.RawMessage(req.Params())
	switch method {
	case protocol.MethodInitialize, protocol.MethodShutdown, methodTerminalInput, methodTerminalResize:
		// Handled on the read loop, in wire order (input only enqueues; a
		// resize is one ioctl), so that an editor's resize and the keys
		// typed after it reach the task in the order they were sent.
	default:
		jsonrpc2.Async(reqCtx) // clones params; the read loop goes on
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("request handler panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			result, err = nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("whale-ls failed while handling %s: %v", method, p))
		}
	}()
	return s.call(ctx, method, params)
}

// call answers requests.
func (s *Server) call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method == protocol.MethodInitialize {
		return s.initialize(ctx, params)
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state == stateNew {
		return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized; send initialize first")
	}
	if state == stateShutdown && method != protocol.MethodShutdown {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down; only exit is accepted now")
	}
	switch method {
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.state = stateShutdown
		s.mu.Unlock()
		return nil, nil
	case protocol.MethodWorkspaceExecuteCommand:
		return s.executeCommand(ctx, params)
	case methodTools:
		return s.toolList(), nil
	case methodPromptAnswer:
		return s.answerPrompt(params)
	case methodTerminalInput, methodTerminalResize, methodTerminalCancel, methodTerminalList:
		return s.terminalRequest(method, params)
	case methodChangesList, methodChangesDiff, methodChangesRevert:
		return s.changesRequest(ctx, method, params)
	case methodShellJudge:
		return s.shellJudge(params)
	case methodPreview:
		return s.preview(ctx, params)
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method %q is not supported by whale-ls", method))
}

// notification routes notifications to their handlers, one file per LSP
// area (lifecycle.go, cancellation.go, text_sync.go, configuration.go);
// problems are logged, never returned.
func (s *Server) notification(ctx context.Context, method string, params json.RawMessage) {
	switch method {
	case protocol.MethodExit:
		s.exit()
		return
	case protocol.MethodCancelRequest:
		s.cancelRequest(params)
		return
	}
	s.mu.Lock()
	running := s.state == stateRunning
	enc := s.enc
	s.mu.Unlock()
	if !running {
		if method != protocol.MethodInitialized {
			s.log.Warn("notification before initialize ignored", "method", method)
		}
		return
	}
	var err error
	switch method {
	case protocol.MethodInitialized:
		s.showIndexProgress()
	case protocol.MethodSetTrace, protocol.MethodTextDocumentWillSave:
	case protocol.MethodTextDocumentDidOpen:
		err = s.didOpen(params)
	case protocol.MethodTextDocumentDidChange:
		err = s.didChange(params, enc)
	case protocol.MethodTextDocumentDidClose:
		err = s.didClose(params)
	case protocol.MethodTextDocumentDidSave:
		s.didSave()
	case protocol.MethodWorkspaceDidChangeConfiguration:
		err = s.didChangeConfiguration(ctx, params)
	default:
		if !strings.HasPrefix(method, "$/") {
			s.log.Info("notification not handled", "method", method)
		}
	}
	if err != nil {
		s.log.Warn("bad notification", "method", method, "err", err)
	}
}

// logToClient logs msg to stderr and as window/logMessage of type typ
// (messageWarning, messageInfo).
func (s *Server) logToClient(ctx context.Context, typ int, msg string) {
	s.log.Warn(msg)
	if s.conn != nil {
		_ = s.conn.Notify(ctx, protocol.MethodWindowLogMessage, logMessageParams{Message: msg, Type: typ})
	}
}

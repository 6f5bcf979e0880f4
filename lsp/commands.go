package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// progressDelay is how long a call runs before the editor is shown progress.
const progressDelay = time.Second

// executeCommand runs whale.<tool> with its single input argument and
// answers the Envelope. Tool failures are Envelopes, never JSON-RPC errors.
// The command need not be among those advertised: a deferred MCP tool
// called by its exact name is activated by Dispatch, and watchTools then
// tells the client about it.
func (s *Server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Command       string            `json:"command"`
		Arguments     []json.RawMessage `json:"arguments"`
		WorkDoneToken json.RawMessage   `json:"workDoneToken"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return envelope(toolbridge.Envelope{Code: toolbridge.CodeInvalidInput, Text: "executeCommand params are not an object with command and arguments: " + err.Error()}), nil
	}
	s.mu.Lock()
	registry := s.registry
	s.mu.Unlock()
	name, ok := strings.CutPrefix(p.Command, "whale.")
	if !ok {
		return envelope(toolbridge.Envelope{Code: toolbridge.CodeUnknownTool, Text: fmt.Sprintf("command %q is not a whale command; whale commands are whale.<tool>, e.g. whale.read_file", p.Command)}), nil
	}
	if len(p.Arguments) != 1 {
		return envelope(toolbridge.Envelope{Code: toolbridge.CodeInvalidInput, Text: fmt.Sprintf("command %s takes exactly one argument, the tool's input object, but got %d; send arguments: [{…input…}]", p.Command, len(p.Arguments))}), nil
	}
	prog := s.progress(ctx, p.WorkDoneToken, "whale: "+name)
	env := registry.Dispatch(withProgress(ctx, prog), toolbridge.Call{Name: name, Input: p.Arguments[0]})
	prog.stop(env.Code)
	return envelope(env), nil
}

// envelope marshals once, so the codec passes the bytes through.
func envelope(e toolbridge.Envelope) json.RawMessage {
	if e.Code != toolbridge.CodeOK && e.Code != "" {
		e.OK = false
	}
	return toolbridge.MarshalEnvelope(e)
}

// toolList answers whale/tools.
func (s *Server) toolList() toolsResult {
	s.mu.Lock()
	registry := s.registry
	s.mu.Unlock()
	return toolsResult{Tools: registry.Specs()}
}

var progressSeq atomic.Int64

// callProgress is the work-done progress of one call: begun once the call
// has run progressDelay, or at once when the call reports that it waits
// for the user.
type callProgress struct {
	s     *Server
	ctx   context.Context
	title string
	// clientToken is the token the client sent with the call, if any.
	clientToken json.RawMessage
	timer       *time.Timer
	done        chan struct{} // closed when the timer's function has decided

	mu      sync.Mutex
	work    *workDone // set when the progress began
	began   bool
	message string // the latest report, sent with begin when it comes first
}

// progress shows work-done progress for a call that takes longer than
// progressDelay, using the client's token when it sent one. Its stop ends
// the progress (if it began); nil when the client shows no progress.
func (s *Server) progress(ctx context.Context, clientToken json.RawMessage, title string) *callProgress {
	s.mu.Lock()
	supported := s.caps.workDoneProgress
	s.mu.Unlock()
	if !supported && len(clientToken) == 0 {
		return nil
	}
	p := &callProgress{s: s, ctx: context.WithoutCancel(ctx), title: title, clientToken: clientToken, done: make(chan struct{})}
	p.timer = time.AfterFunc(progressDelay, p.begin)
	return p
}

// begin creates the token when the client sent none and begins the
// progress, with the latest report as its message.
func (p *callProgress) begin() {
	defer close(p.done)
	work, err := p.s.newWorkDone(p.ctx, p.clientToken, "whale")
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.work = work
	p.began = work.begin(p.title, p.message) == nil
}

// report shows message ("waiting for your review") as the call's progress,
// beginning it now if it has not begun.
func (p *callProgress) report(message string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.message = message
	began, work := p.began, p.work
	p.mu.Unlock()
	if began {
		_ = work.report(message)
		return
	}
	if p.timer.Stop() {
		go p.begin()
	}
}

// stop ends the progress, if it began, with the call's code.
func (p *callProgress) stop(code string) {
	if p == nil {
		return
	}
	if !p.timer.Stop() {
		<-p.done // begin has started (by the timer or a report): wait until it has decided
	} else {
		close(p.done)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.began {
		_ = p.work.end(code)
	}
}

// progressKey holds the running call's progress in its context.
type progressKey struct{}

func withProgress(ctx context.Context, p *callProgress) context.Context {
	if p == nil {
		return ctx
	}
	// A proxied MCP server's progress shows as the call's too.
	return toolbridge.WithProgress(context.WithValue(ctx, progressKey{}, p), p.report)
}

// reportProgress shows message as the progress of the call whose context
// this is, if the client shows progress.
func reportProgress(ctx context.Context, message string) {
	p, _ := ctx.Value(progressKey{}).(*callProgress)
	p.report(message)
}

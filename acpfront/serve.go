package acpfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// whaleServes reports whether whale answers an agent request itself.
func whaleServes(method string) bool {
	switch method {
	case "fs/read_text_file", "fs/write_text_file",
		"terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		return true
	}
	return false
}

// serve answers an agent request whale owns, in its own goroutine, so that
// a long terminal/wait_for_exit holds nothing else back. The request can
// be canceled by the agent ($/cancel_request) or the editor
// (session/cancel of its session).
func (p *Proxy) serve(ctx context.Context, m *message) {
	sessionID := p.noteSession(m.Params)
	ctx, done := p.sessionContext(ctx, sessionID)
	key := idKey(m.ID)
	p.mu.Lock()
	p.served[key] = done
	p.mu.Unlock()
	go func() {
		defer func() {
			p.mu.Lock()
			delete(p.served, key)
			p.mu.Unlock()
			done()
		}()
		result, err := p.handle(ctx, sessionID, m)
		if err != nil {
			_ = p.agent.fail(m.ID, asRPCError(ctx, err))
			return
		}
		_ = p.agent.respond(m.ID, result)
	}()
}

// handle runs one whale-served request.
func (p *Proxy) handle(ctx context.Context, sessionID string, m *message) (any, error) {
	sess, err := p.session()
	if err != nil {
		return nil, err
	}
	switch m.Method {
	case "fs/read_text_file":
		var in readParams
		if err := decodeParams(m.Params, &in); err != nil {
			return nil, err
		}
		if p.editorServesFiles() {
			return p.forwardRead(ctx, sess, in)
		}
		return p.files.read(ctx, p.filesOf(sess), in)
	case "fs/write_text_file":
		var in writeParams
		if err := decodeParams(m.Params, &in); err != nil {
			return nil, err
		}
		if p.editorServesFiles() {
			return p.forwardWrite(ctx, sess, sessionID, in)
		}
		return p.write(ctx, p.filesOf(sess), sessionID, in)
	case "terminal/create":
		var in createTerminalParams
		if err := decodeParams(m.Params, &in); err != nil {
			return nil, err
		}
		return p.createTerminal(ctx, sess, in)
	}
	var in terminalParams
	if err := decodeParams(m.Params, &in); err != nil {
		return nil, err
	}
	switch m.Method {
	case "terminal/output":
		return p.terms.output(in.TerminalID)
	case "terminal/wait_for_exit":
		return p.terms.waitForExit(ctx, in.TerminalID)
	case "terminal/kill":
		return p.killTerminal(sess, in.TerminalID, false)
	default: // terminal/release
		return p.killTerminal(sess, in.TerminalID, true)
	}
}

// decodeParams decodes a request's params, or says what is wrong with them.
func decodeParams(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("invalid params (%v); send the fields the ACP schema names for this method", err)}
	}
	return nil
}

// asRPCError turns a failure into the JSON-RPC error the agent reads: its
// text (what happened and what to do next), with whale's code in data.
func asRPCError(ctx context.Context, err error) *rpcError {
	if e, ok := errors.AsType[*rpcError](err); ok {
		return e
	}
	if f, ok := errors.AsType[*toolbridge.Failure](err); ok {
		code := codeInternal
		switch f.Code {
		case toolbridge.CodeNotFound, toolbridge.CodeTaskNotFound:
			code = codeResourceNotFound
		case toolbridge.CodeInvalidInput:
			code = codeInvalidParams
		case toolbridge.CodeCanceled:
			code = codeRequestCancelled
		}
		return &rpcError{Code: code, Message: f.Text, Data: mustJSON(map[string]any{"whaleCode": f.Code})}
	}
	if ctx.Err() != nil {
		return &rpcError{Code: codeRequestCancelled, Message: "the request was canceled; nothing more was done"}
	}
	return &rpcError{Code: codeInternal, Message: err.Error()}
}

package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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
	stop := s.progress(ctx, p.WorkDoneToken, "whale: "+name)
	env := registry.Dispatch(ctx, toolbridge.Call{Name: name, Input: p.Arguments[0]})
	stop(env.Code)
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

// progress shows work-done progress for a call that takes longer than
// progressDelay, using the client's token when it sent one. The returned
// function ends the progress (if it began).
func (s *Server) progress(ctx context.Context, clientToken json.RawMessage, title string) func(code string) {
	s.mu.Lock()
	supported := s.caps.workDoneProgress
	s.mu.Unlock()
	if !supported && len(clientToken) == 0 {
		return func(string) {}
	}
	var began bool
	var token any
	done := make(chan struct{})
	timer := time.AfterFunc(progressDelay, func() {
		defer close(done)
		if len(clientToken) > 0 && string(clientToken) != "null" {
			token = clientToken
		} else {
			t := fmt.Sprintf("whale-%d", progressSeq.Add(1))
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if _, err := s.conn.Call(cctx, "window/workDoneProgress/create", map[string]any{"token": t}, nil); err != nil {
				return
			}
			token = t
		}
		began = s.conn.Notify(context.WithoutCancel(ctx), "$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "begin", "title": title, "cancellable": false}}) == nil
	})
	return func(code string) {
		if timer.Stop() {
			return
		}
		<-done // the timer's function has started: wait until it has decided
		if began {
			_ = s.conn.Notify(context.WithoutCancel(ctx), "$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "end", "message": code}})
		}
	}
}

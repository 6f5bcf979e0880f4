package acpfront

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// The test binary is also a scripted ACP agent (ACPFRONT_TEST_AGENT=1):
// each session/prompt's first text block is a JSON array of steps, run in
// order:
//
//	{"method": M, "params": P}   send request M to the client and report
//	                             its answer as an agent_message_chunk
//	{"method": M, "id": ID, …}   the same, under the given id
//	{"notify": N}                send N agent_message_chunk updates "0"…"N-1"
//	{"toolCall": ID, "kind": K}  announce an unfinished tool call
//	{"waitCancel": true}         wait for session/cancel, then end the turn
//	                             with stopReason "cancelled"
//	{"exit": CODE}               exit at once
//
// initialize's result carries, in _meta, the clientCapabilities it got and
// the agent's pid; session/new's the mcpServers it got.
type fakeAgent struct {
	out      *peer
	mu       sync.Mutex
	seq      int
	pending  map[string]chan *message
	canceled chan struct{}
}

type step struct {
	Method     string          `json:"method"`
	ID         json.RawMessage `json:"id"`
	Params     json.RawMessage `json:"params"`
	Notify     int             `json:"notify"`
	ToolCall   string          `json:"toolCall"`
	Kind       string          `json:"kind"`
	WaitCancel bool            `json:"waitCancel"`
	Exit       *int            `json:"exit"`
}

func runFakeAgent(in io.Reader, out io.Writer) {
	a := &fakeAgent{out: newPeer(out), pending: map[string]chan *message{}, canceled: make(chan struct{}, 1)}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.isResponse():
			a.mu.Lock()
			ch := a.pending[idKey(m.ID)]
			delete(a.pending, idKey(m.ID))
			a.mu.Unlock()
			if ch != nil {
				ch <- &m
			}
		case m.Method == "initialize":
			var p struct {
				Caps json.RawMessage `json:"clientCapabilities"`
			}
			_ = json.Unmarshal(m.Params, &p)
			_ = a.out.respond(m.ID, map[string]any{
				"protocolVersion":   1,
				"agentCapabilities": map[string]any{"loadSession": true},
				"authMethods":       []any{map[string]any{"id": "key", "name": "API key"}},
				"agentInfo":         map[string]any{"name": "fake-agent", "title": "Fake Agent", "version": "1.0.0"},
				"_meta":             map[string]any{"clientCapabilities": p.Caps, "pid": os.Getpid()},
			})
		case m.Method == "session/new" || m.Method == "session/load":
			var p struct {
				MCP json.RawMessage `json:"mcpServers"`
			}
			_ = json.Unmarshal(m.Params, &p)
			_ = a.out.respond(m.ID, map[string]any{"sessionId": "s1", "_meta": map[string]any{"mcpServers": p.MCP}})
		case m.Method == "session/cancel":
			select {
			case a.canceled <- struct{}{}:
			default:
			}
		case m.Method == "session/prompt":
			go a.prompt(m)
		case m.isRequest():
			_ = a.out.fail(m.ID, &rpcError{Code: -32601, Message: "method not found: " + m.Method})
		}
	}
}

func (a *fakeAgent) chunk(text string) {
	_ = a.out.notify("session/update", map[string]any{"sessionId": "s1", "update": map[string]any{
		"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}})
}

func (a *fakeAgent) prompt(m message) {
	var p struct {
		Prompt []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	var steps []step
	if json.Unmarshal(m.Params, &p) != nil || len(p.Prompt) == 0 || json.Unmarshal([]byte(p.Prompt[0].Text), &steps) != nil {
		_ = a.out.fail(m.ID, &rpcError{Code: codeInvalidParams, Message: "the fake agent wants a JSON array of steps"})
		return
	}
	for _, s := range steps {
		switch {
		case s.Exit != nil:
			os.Exit(*s.Exit)
		case s.Notify > 0:
			for i := range s.Notify {
				a.chunk(strconv.Itoa(i))
			}
		case s.ToolCall != "":
			_ = a.out.notify("session/update", map[string]any{"sessionId": "s1", "update": map[string]any{
				"sessionUpdate": "tool_call", "toolCallId": s.ToolCall, "title": "edit", "kind": s.Kind, "status": "in_progress"}})
		case s.WaitCancel:
			select {
			case <-a.canceled:
				_ = a.out.respond(m.ID, map[string]any{"stopReason": "cancelled"})
			case <-time.After(20 * time.Second):
				_ = a.out.respond(m.ID, map[string]any{"stopReason": "end_turn"})
			}
			return
		case s.Method != "":
			id := s.ID
			ch := make(chan *message, 1)
			a.mu.Lock()
			if id == nil {
				a.seq++
				id = json.RawMessage(strconv.Itoa(a.seq))
			}
			a.pending[idKey(id)] = ch
			a.mu.Unlock()
			_ = a.out.request(id, s.Method, s.Params)
			r := <-ch
			if r.Error != nil {
				a.chunk(fmt.Sprintf("error %d %s", r.Error.Code, r.Error.Message))
			} else {
				a.chunk("ok " + string(r.Result))
			}
		}
	}
	_ = a.out.respond(m.ID, map[string]any{"stopReason": "end_turn"})
}

// Package scriptedmodel is a model server for tests: an HTTP server on
// 127.0.0.1 that speaks enough of the OpenAI Chat Completions, OpenAI
// Responses, Anthropic Messages and Gemini generateContent APIs to play a
// fixed script of tool calls and a final answer to a real host (an agent
// CLI, an editor's chat).
//
// It is test code, shipped in no binary: hosts need a model, and a model
// cannot run here, so this is the one stand-in the host tests use. It lives
// under internal/ so that any package's tests may import it and nothing
// outside the module can.
//
// The answer to a request depends only on that request: step N of the
// script is played when the conversation already holds N tool calls from the
// assistant, and the final text once every step has been played. A host
// that resends a request gets the same answer, and a side request that
// offers no tools (a title, a summary) gets the final text. Each step names
// its tool by whale's name; the server calls the offered tool whose name
// ends with it (hosts prefix MCP tools differently: mcp__whale__read_file,
// mcp_whale_read_file, whale-read_file).
//
// Every request is recorded with the tool names it offered and the tool
// results it carried, for a test's assertions. It is not a model of the
// APIs' corner cases: no authentication, no rate limits, one choice, no
// images; token counts are made up.
package scriptedmodel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Step is one tool call of a script: Tool is whale's tool name (matched
// against the end of the offered names) and Arguments its input.
type Step struct {
	Tool      string
	Arguments map[string]any
}

// Script is what the model does in a turn: call each step's tool in order,
// then answer Final.
type Script struct {
	Steps []Step
	Final string
}

// API names the wire protocol a request came in on.
type API string

// The APIs the server answers.
const (
	ChatCompletions   API = "chat.completions"
	Responses         API = "responses"
	AnthropicMessages API = "anthropic.messages"
	GeminiGenerate    API = "gemini.generateContent"
	Other             API = "other"
)

// ToolResult is a tool result a host sent back to the model: the call it
// answers, the tool's name as the model called it (when the request still
// holds that call) and the text the model reads.
type ToolResult struct {
	CallID string
	Tool   string
	Text   string
}

// Request is one recorded HTTP request with what the server made of it.
type Request struct {
	Method string
	Path   string
	API    API
	// Body is the raw request body.
	Body json.RawMessage
	// Tools are the names of the tools the request offered, and Schemas
	// their input schemas by name, as the host wrote them.
	Tools   []string
	Schemas map[string]json.RawMessage
	// Results are the tool results the request carried.
	Results []ToolResult
	// Played is the step index answered (-1 for the final text, -2 when the
	// request was not a model turn).
	Played int
	// Problem says why the server could not play the script, or is empty.
	Problem string
	// At is when the request arrived, counted from Start.
	At time.Duration
}

// Server is a running scripted model. Its methods are safe for concurrent
// use.
type Server struct {
	script   Script
	started  time.Time
	listener net.Listener
	http     *http.Server

	mu       sync.Mutex
	requests []Request
}

// Start listens on a free port of 127.0.0.1 and serves script until Close.
func Start(script Script) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("scripted model: %w", err)
	}
	s := &Server{script: script, started: time.Now(), listener: l}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.http.Serve(l)
	return s, nil
}

// URL is the server's base URL, "http://127.0.0.1:PORT", without a path.
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Close stops the server and drops its open connections.
func (s *Server) Close() error { return s.http.Close() }

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ToolResults returns every distinct tool result received so far (a host
// resends earlier results with each turn), in the order first seen.
func (s *Server) ToolResults() []ToolResult {
	seen := map[string]bool{}
	var out []ToolResult
	for _, r := range s.Requests() {
		for _, tr := range r.Results {
			key := tr.CallID + "\x00" + tr.Text
			if !seen[key] {
				seen[key] = true
				out = append(out, tr)
			}
		}
	}
	return out
}

// Log renders the recorded requests for a failure message: one line per
// request with its path, the step played, the tools offered (counted) and
// the results (cut to limit bytes each).
func (s *Server) Log(limit int) string {
	var b strings.Builder
	for i, r := range s.Requests() {
		fmt.Fprintf(&b, "#%d %.1fs %s %s api=%s played=%d tools=%d", i, r.At.Seconds(), r.Method, r.Path, r.API, r.Played, len(r.Tools))
		if r.Problem != "" {
			fmt.Fprintf(&b, " problem=%q", r.Problem)
		}
		b.WriteByte('\n')
		for _, tr := range r.Results {
			fmt.Fprintf(&b, "   result %s %s: %q\n", tr.CallID, tr.Tool, cut(tr.Text, limit))
		}
	}
	return b.String()
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// turn is what a request asks of the model, in API-neutral form.
type turn struct {
	tools   []string
	schemas map[string]json.RawMessage
	calls   int // tool calls the assistant already made in the conversation
	results []ToolResult
	stream  bool
}

// offer records a tool the request offers.
func (t *turn) offer(name string, schema json.RawMessage) {
	if name == "" {
		return
	}
	if t.schemas == nil {
		t.schemas = map[string]json.RawMessage{}
	}
	t.tools = append(t.tools, name)
	t.schemas[name] = schema
}

// reply is the model's answer: one tool call or a final text.
type reply struct {
	tool, callID, arguments string
	text                    string
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Request{Method: r.Method, Path: r.URL.Path, API: Other, Played: -2, At: time.Since(s.started)}
	if json.Valid(body) {
		rec.Body = body
	} else if len(body) > 0 {
		rec.Body, _ = json.Marshal(string(body))
	}
	defer func() {
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
	}()

	path := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "scripted", "object": "model", "type": "model", "display_name": "scripted", "created": 0, "owned_by": "scripted"},
		}})
		return
	case r.Method != http.MethodPost:
		http.NotFound(w, r)
		return
	case strings.HasSuffix(path, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 1 + len(body)/4})
		return
	case strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 1 + len(body)/4})
		return
	}

	var t turn
	var err error
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		rec.API = ChatCompletions
		t, err = parseChat(body)
	case strings.HasSuffix(path, "/responses"):
		rec.API = Responses
		t, err = parseResponses(body)
	case strings.HasSuffix(path, "/messages"):
		rec.API = AnthropicMessages
		t, err = parseAnthropic(body)
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		rec.API = GeminiGenerate
		t, err = parseGemini(body)
		t.stream = strings.HasSuffix(path, ":streamGenerateContent")
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		rec.Problem = err.Error()
		http.Error(w, "scripted model: "+err.Error(), http.StatusBadRequest)
		return
	}
	rec.Tools, rec.Schemas, rec.Results = t.tools, t.schemas, t.results
	rp, played, problem := s.decide(t)
	rec.Played, rec.Problem = played, problem

	switch rec.API {
	case ChatCompletions:
		writeChat(w, rp, t.stream)
	case Responses:
		writeResponses(w, rp, t.stream)
	case AnthropicMessages:
		writeAnthropic(w, rp, t.stream)
	case GeminiGenerate:
		writeGemini(w, rp, t.stream)
	}
}

// decide picks the reply for a turn: the next step when tools are offered
// and steps are left, else the final text.
func (s *Server) decide(t turn) (reply, int, string) {
	if len(t.tools) == 0 || t.calls >= len(s.script.Steps) {
		return reply{text: s.script.Final}, -1, ""
	}
	step := s.script.Steps[t.calls]
	name, ok := MatchTool(t.tools, step.Tool)
	if !ok {
		problem := fmt.Sprintf("no offered tool ends with %q (offered: %s)", step.Tool, strings.Join(t.tools, ", "))
		return reply{text: "scripted model: " + problem}, t.calls, problem
	}
	args, _ := json.Marshal(step.Arguments)
	if step.Arguments == nil {
		args = []byte("{}")
	}
	return reply{tool: name, callID: fmt.Sprintf("call_%d", t.calls+1), arguments: string(args)}, t.calls, ""
}

// MatchTool finds the offered tool that stands for whale's tool want: the
// name itself, or a name that ends with it after a separator (`_`, `-`,
// `.`, `/`, `:`). Among several, a name containing "whale" wins, then the
// shortest (so "edit" picks mcp__whale__edit over mcp__whale__multi_edit).
func MatchTool(offered []string, want string) (string, bool) {
	var found []string
	for _, name := range offered {
		if name == want {
			found = append(found, name)
			continue
		}
		if strings.HasSuffix(name, want) && strings.ContainsRune("_-./:", rune(name[len(name)-len(want)-1])) {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return "", false
	}
	sort.SliceStable(found, func(i, j int) bool {
		wi, wj := strings.Contains(found[i], "whale"), strings.Contains(found[j], "whale")
		if wi != wj {
			return wi
		}
		return len(found[i]) < len(found[j])
	})
	return found[0], true
}

// textOf reads a content value that is either a string or a list of parts
// with a "text" field (text, input_text, output_text); other parts are
// kept as their JSON so that nothing the model reads is lost.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	var b strings.Builder
	for _, p := range parts {
		var part struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(p, &part) == nil && part.Text != nil {
			b.WriteString(*part.Text)
		} else {
			b.Write(p)
		}
	}
	return b.String()
}

// --- OpenAI Chat Completions ---

func parseChat(body []byte) (turn, error) {
	var req struct {
		Stream bool `json:"stream"`
		Tools  []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, fmt.Errorf("chat completions request: %w", err)
	}
	t := turn{stream: req.Stream}
	for _, tool := range req.Tools {
		t.offer(tool.Function.Name, tool.Function.Parameters)
	}
	names := map[string]string{}
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			t.calls++
			names[c.ID] = c.Function.Name
		}
		if m.Role == "tool" {
			t.results = append(t.results, ToolResult{CallID: m.ToolCallID, Tool: names[m.ToolCallID], Text: textOf(m.Content)})
		}
	}
	return t, nil
}

func writeChat(w http.ResponseWriter, rp reply, stream bool) {
	const id = "chatcmpl-scripted"
	finish := "stop"
	message := map[string]any{"role": "assistant", "content": rp.text}
	var calls []any
	if rp.tool != "" {
		finish = "tool_calls"
		calls = []any{map[string]any{"index": 0, "id": rp.callID, "type": "function",
			"function": map[string]any{"name": rp.tool, "arguments": rp.arguments}}}
		message = map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}}, "usage": usage})
		return
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	sse := newSSE(w)
	sse.data(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if rp.tool != "" {
		sse.data(chunk(map[string]any{"tool_calls": calls}, nil))
	} else {
		sse.data(chunk(map[string]any{"content": rp.text}, nil))
	}
	last := chunk(map[string]any{}, finish)
	last["usage"] = usage
	sse.data(last)
	sse.raw("[DONE]")
}

// --- OpenAI Responses ---

func parseResponses(body []byte) (turn, error) {
	var req struct {
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
		Input  json.RawMessage   `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, fmt.Errorf("responses request: %w", err)
	}
	t := turn{stream: req.Stream}
	for _, raw := range req.Tools {
		offerResponsesTool(&t, raw, "")
	}
	var items []struct {
		Type      string          `json:"type"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Namespace string          `json:"namespace"`
		Output    json.RawMessage `json:"output"`
	}
	_ = json.Unmarshal(req.Input, &items) // a string input holds no calls
	names := map[string]string{}
	for _, it := range items {
		switch it.Type {
		case "function_call", "custom_tool_call":
			t.calls++
			names[it.CallID] = joinNamespace(it.Namespace, it.Name)
		case "function_call_output", "custom_tool_call_output":
			t.results = append(t.results, ToolResult{CallID: it.CallID, Tool: names[it.CallID], Text: textOf(it.Output)})
		}
	}
	return t, nil
}

// offerResponsesTool records a Responses tool: a function by its name, or
// for a namespace (a group of tools, as Codex sends an MCP server's) each
// member as "namespace.name".
func offerResponsesTool(t *turn, raw json.RawMessage, namespace string) {
	var tool struct {
		Type       string            `json:"type"`
		Name       string            `json:"name"`
		Parameters json.RawMessage   `json:"parameters"`
		Tools      []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(raw, &tool) != nil {
		return
	}
	if tool.Type == "namespace" || len(tool.Tools) > 0 {
		for _, member := range tool.Tools {
			offerResponsesTool(t, member, joinNamespace(namespace, tool.Name))
		}
		return
	}
	if tool.Name != "" {
		t.offer(joinNamespace(namespace, tool.Name), tool.Parameters)
	}
}

func joinNamespace(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "." + name
}

func writeResponses(w http.ResponseWriter, rp reply, stream bool) {
	const id = "resp_scripted"
	var item map[string]any
	if rp.tool != "" {
		item = map[string]any{"type": "function_call", "id": "fc_" + rp.callID, "call_id": rp.callID,
			"arguments": rp.arguments, "status": "completed"}
		if ns, name, ok := strings.Cut(rp.tool, "."); ok {
			item["namespace"], item["name"] = ns, name
		} else {
			item["name"] = rp.tool
		}
	} else {
		item = map[string]any{"type": "message", "id": "msg_scripted", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rp.text, "annotations": []any{}}}}
	}
	usage := map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	response := func(status string, output []any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "created_at": 0, "model": "scripted", "status": status, "output": output}
		if status == "completed" {
			r["usage"] = usage
		}
		return r
	}
	if !stream {
		writeJSON(w, response("completed", []any{item}))
		return
	}
	sse := newSSE(w)
	seq := 0
	event := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		sse.event(typ, fields)
	}
	event("response.created", map[string]any{"response": response("in_progress", []any{})})
	event("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	if rp.tool != "" {
		event("response.function_call_arguments.delta", map[string]any{"output_index": 0, "item_id": item["id"], "delta": rp.arguments})
		event("response.function_call_arguments.done", map[string]any{"output_index": 0, "item_id": item["id"], "arguments": rp.arguments})
	} else {
		event("response.output_text.delta", map[string]any{"output_index": 0, "item_id": item["id"], "content_index": 0, "delta": rp.text})
		event("response.output_text.done", map[string]any{"output_index": 0, "item_id": item["id"], "content_index": 0, "text": rp.text})
	}
	event("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	event("response.completed", map[string]any{"response": response("completed", []any{item})})
}

// --- Anthropic Messages ---

func parseAnthropic(body []byte) (turn, error) {
	var req struct {
		Stream bool `json:"stream"`
		Tools  []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, fmt.Errorf("anthropic messages request: %w", err)
	}
	t := turn{stream: req.Stream}
	for _, tool := range req.Tools {
		t.offer(tool.Name, tool.InputSchema)
	}
	names := map[string]string{}
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				t.calls++
				names[b.ID] = b.Name
			case "tool_result":
				t.results = append(t.results, ToolResult{CallID: b.ToolUseID, Tool: names[b.ToolUseID], Text: textOf(b.Content)})
			}
		}
	}
	return t, nil
}

func writeAnthropic(w http.ResponseWriter, rp reply, stream bool) {
	const id = "msg_scripted"
	stop := "end_turn"
	var block map[string]any
	var input any = map[string]any{}
	if rp.tool != "" {
		stop = "tool_use"
		_ = json.Unmarshal([]byte(rp.arguments), &input)
		block = map[string]any{"type": "tool_use", "id": "toolu_" + rp.callID, "name": rp.tool, "input": input}
	} else {
		block = map[string]any{"type": "text", "text": rp.text}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	message := func(content []any, stopReason any) map[string]any {
		return map[string]any{"id": id, "type": "message", "role": "assistant", "model": "scripted",
			"content": content, "stop_reason": stopReason, "stop_sequence": nil, "usage": usage}
	}
	if !stream {
		writeJSON(w, message([]any{block}, stop))
		return
	}
	sse := newSSE(w)
	sse.event("message_start", map[string]any{"type": "message_start", "message": message([]any{}, nil)})
	if rp.tool != "" {
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": rp.tool, "input": map[string]any{}}})
		sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": rp.arguments}})
	} else {
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": rp.text}})
	}
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

// --- Gemini generateContent ---

func parseGemini(body []byte) (turn, error) {
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionCall *struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, fmt.Errorf("gemini generateContent request: %w", err)
	}
	var t turn
	for _, tool := range req.Tools {
		for _, fd := range tool.FunctionDeclarations {
			schema := fd.ParametersJSONSchema
			if len(schema) == 0 {
				schema = fd.Parameters
			}
			t.offer(fd.Name, schema)
		}
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				t.calls++
			}
			if fr := p.FunctionResponse; fr != nil {
				t.results = append(t.results, ToolResult{CallID: fr.ID, Tool: fr.Name, Text: geminiResponseText(fr.Response)})
			}
		}
	}
	return t, nil
}

// geminiResponseText reads a functionResponse's response object: its
// "output" string or "content" parts when it has them, else its JSON.
func geminiResponseText(raw json.RawMessage) string {
	var resp struct {
		Output  *string         `json:"output"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &resp) == nil {
		if resp.Output != nil {
			return *resp.Output
		}
		if len(resp.Content) > 0 {
			return textOf(resp.Content)
		}
	}
	return string(raw)
}

func writeGemini(w http.ResponseWriter, rp reply, stream bool) {
	part := map[string]any{"text": rp.text}
	if rp.tool != "" {
		var args any = map[string]any{}
		_ = json.Unmarshal([]byte(rp.arguments), &args)
		part = map[string]any{"functionCall": map[string]any{"id": rp.callID, "name": rp.tool, "args": args}}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": []any{part}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "scripted",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).data(resp)
}

// --- writing answers ---

func writeJSON(w http.ResponseWriter, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// sseWriter writes server-sent events, flushing each one.
type sseWriter struct {
	w *bufio.Writer
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sseWriter{w: bufio.NewWriter(w), f: f}
}

func (s *sseWriter) event(name string, v any) {
	body, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, body)
	s.flush()
}

func (s *sseWriter) data(v any) {
	body, _ := json.Marshal(v)
	s.raw(string(body))
}

func (s *sseWriter) raw(data string) {
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	s.flush()
}

func (s *sseWriter) flush() {
	s.w.Flush()
	if s.f != nil {
		s.f.Flush()
	}
}

package scriptedmodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var testScript = Script{
	Steps: []Step{
		{Tool: "read_file", Arguments: map[string]any{"file_path": "a.txt"}},
		{Tool: "edit", Arguments: map[string]any{"file_path": "a.txt", "search": "x", "replace": "y"}},
	},
	Final: "all done",
}

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(testScript)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, url string, body any) (*http.Response, []byte) {
	t.Helper()
	data, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return resp, out.Bytes()
}

// sseData returns the JSON payloads of a server-sent event stream, with
// the event names when present.
func sseData(t *testing.T, body []byte) (names []string, payloads []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			if data == "[DONE]" {
				payloads = append(payloads, map[string]any{"done": true})
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event data %q is not JSON: %v", data, err)
			}
			payloads = append(payloads, m)
		}
	}
	return names, payloads
}

// get follows a path of map keys and list indexes through decoded JSON.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func TestMatchTool(t *testing.T) {
	offered := []string{"Read", "Edit", "mcp__whale__read_file", "mcp__whale__multi_edit", "mcp__whale__edit", "other__edit", "whale-shell_run", "mcp__whale.list_dir", "thread_file"}
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"read_file", "mcp__whale__read_file", true},
		{"edit", "mcp__whale__edit", true},
		{"shell_run", "whale-shell_run", true},
		{"list_dir", "mcp__whale.list_dir", true},
		{"Read", "Read", true},
		{"grep", "", false},
	} {
		got, ok := MatchTool(offered, tc.want)
		if got != tc.got || ok != tc.ok {
			t.Errorf("MatchTool(%q) = %q, %v, want %q, %v", tc.want, got, ok, tc.got, tc.ok)
		}
	}
}

func TestChatCompletions(t *testing.T) {
	s := start(t)
	tools := []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "whale_read_file", "parameters": map[string]any{"type": "object"}}},
		map[string]any{"type": "function", "function": map[string]any{"name": "whale_edit"}},
	}
	// First turn, streaming: step 1.
	_, body := post(t, s.URL()+"/v1/chat/completions", map[string]any{"stream": true, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": "go"}}})
	_, events := sseData(t, body)
	var call any
	for _, e := range events {
		if c := get(e, "choices", 0, "delta", "tool_calls", 0); c != nil {
			call = c
		}
	}
	if got := get(call, "function", "name"); got != "whale_read_file" {
		t.Errorf("streamed tool call name = %v, want whale_read_file; events: %v", got, events)
	}
	if got := get(call, "function", "arguments"); got != `{"file_path":"a.txt"}` {
		t.Errorf("streamed arguments = %v", got)
	}
	if last := events[len(events)-1]; last["done"] != true {
		t.Errorf("stream does not end with [DONE]: %v", last)
	}
	if got := get(events[len(events)-2], "choices", 0, "finish_reason"); got != "tool_calls" {
		t.Errorf("finish_reason = %v, want tool_calls", got)
	}

	// Second turn, not streaming, carrying the first result: step 2.
	history := []any{
		map[string]any{"role": "user", "content": "go"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
			"function": map[string]any{"name": "whale_read_file", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": []any{map[string]any{"type": "text", "text": "1\tx"}}},
	}
	_, body = post(t, s.URL()+"/v1/chat/completions", map[string]any{"tools": tools, "messages": history})
	var resp map[string]any
	json.Unmarshal(body, &resp)
	if got := get(resp, "choices", 0, "message", "tool_calls", 0, "function", "name"); got != "whale_edit" {
		t.Errorf("second turn calls %v, want whale_edit: %s", got, body)
	}

	// A side request without tools gets the final text.
	_, body = post(t, s.URL()+"/v1/chat/completions", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "title?"}}})
	json.Unmarshal(body, &resp)
	if got := get(resp, "choices", 0, "message", "content"); got != "all done" {
		t.Errorf("request without tools answered %v, want the final text", got)
	}

	if got := string(s.Requests()[0].Schemas["whale_read_file"]); got != `{"type":"object"}` {
		t.Errorf("Schemas[whale_read_file] = %s, want the parameters sent", got)
	}
	want := []ToolResult{{CallID: "call_1", Tool: "whale_read_file", Text: "1\tx"}}
	if diff := cmp.Diff(want, s.ToolResults()); diff != "" {
		t.Errorf("ToolResults() mismatch (-want +got):\n%s", diff)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].API != ChatCompletions || reqs[0].Played != 0 || reqs[1].Played != 1 || reqs[2].Played != -1 {
		t.Errorf("Requests() = %+v, want three chat turns playing steps 0, 1 and the final text", reqs)
	}
}

func TestResponses(t *testing.T) {
	s := start(t)
	// Codex groups an MCP server's tools in a namespace.
	tools := []any{
		map[string]any{"type": "function", "name": "shell"},
		map[string]any{"type": "namespace", "name": "mcp__whale", "tools": []any{
			map[string]any{"type": "function", "name": "read_file", "parameters": map[string]any{"required": []any{"file_path"}}},
			map[string]any{"type": "function", "name": "edit"},
		}},
	}
	input := []any{
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "go"}}},
		map[string]any{"type": "function_call", "call_id": "call_1", "namespace": "mcp__whale", "name": "read_file", "arguments": "{}"},
		map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "1\tx"},
	}
	_, body := post(t, s.URL()+"/v1/responses", map[string]any{"stream": true, "tools": tools, "input": input})
	names, events := sseData(t, body)
	wantNames := []string{"response.created", "response.output_item.added", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done", "response.completed"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("event names mismatch (-want +got):\n%s", diff)
	}
	for i, e := range events {
		if e["type"] != names[i] {
			t.Errorf("event %d: type %v under the name %s", i, e["type"], names[i])
		}
	}
	item := get(events[len(events)-1], "response", "output", 0)
	if get(item, "type") != "function_call" || get(item, "namespace") != "mcp__whale" || get(item, "name") != "edit" || get(item, "call_id") != "call_2" {
		t.Errorf("completed output item = %v, want a function_call of mcp__whale edit, call_2", item)
	}
	if get(events[len(events)-1], "response", "usage", "total_tokens") == nil {
		t.Errorf("response.completed has no usage: %v", events[len(events)-1])
	}

	// Every step played: the final text, not streamed.
	input = append(input,
		map[string]any{"type": "function_call", "call_id": "call_2", "namespace": "mcp__whale", "name": "edit", "arguments": "{}"},
		map[string]any{"type": "function_call_output", "call_id": "call_2", "output": []any{map[string]any{"type": "input_text", "text": "Edited"}}})
	_, body = post(t, s.URL()+"/v1/responses", map[string]any{"tools": tools, "input": input})
	var resp map[string]any
	json.Unmarshal(body, &resp)
	if got := get(resp, "output", 0, "content", 0, "text"); got != "all done" {
		t.Errorf("final response text = %v, want the final text: %s", got, body)
	}
	want := []ToolResult{{CallID: "call_1", Tool: "mcp__whale.read_file", Text: "1\tx"}, {CallID: "call_2", Tool: "mcp__whale.edit", Text: "Edited"}}
	if diff := cmp.Diff(want, s.ToolResults()); diff != "" {
		t.Errorf("ToolResults() mismatch (-want +got):\n%s", diff)
	}
	if got := string(s.Requests()[0].Schemas["mcp__whale.read_file"]); got != `{"required":["file_path"]}` {
		t.Errorf("Schemas[mcp__whale.read_file] = %s, want the namespace member's parameters", got)
	}
	if got := s.Requests()[0].Tools; !cmp.Equal(got, []string{"shell", "mcp__whale.read_file", "mcp__whale.edit"}) {
		t.Errorf("tools found = %v", got)
	}
}

func TestAnthropicMessages(t *testing.T) {
	s := start(t)
	tools := []any{map[string]any{"name": "Read"}, map[string]any{"name": "mcp__whale__read_file", "input_schema": map[string]any{"type": "object"}}, map[string]any{"name": "mcp__whale__edit"}}
	messages := []any{
		map[string]any{"role": "user", "content": "go"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "mcp__whale__read_file", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1",
			"content": []any{map[string]any{"type": "text", "text": "1\tx"}}}}},
	}
	_, body := post(t, s.URL()+"/v1/messages?beta=true", map[string]any{"stream": true, "tools": tools, "messages": messages})
	names, events := sseData(t, body)
	wantNames := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("event names mismatch (-want +got):\n%s", diff)
	}
	if got := get(events[1], "content_block", "name"); got != "mcp__whale__edit" {
		t.Errorf("tool_use name = %v, want mcp__whale__edit", got)
	}
	var input map[string]any
	json.Unmarshal([]byte(get(events[2], "delta", "partial_json").(string)), &input)
	if input["search"] != "x" {
		t.Errorf("input_json_delta = %v", get(events[2], "delta"))
	}
	if got := get(events[4], "delta", "stop_reason"); got != "tool_use" {
		t.Errorf("stop_reason = %v, want tool_use", got)
	}

	// Not streamed; and token counting.
	_, body = post(t, s.URL()+"/v1/messages", map[string]any{"tools": tools, "messages": messages})
	var resp map[string]any
	json.Unmarshal(body, &resp)
	if get(resp, "content", 0, "type") != "tool_use" || get(resp, "content", 0, "input", "replace") != "y" || get(resp, "stop_reason") != "tool_use" {
		t.Errorf("non-streamed message = %s", body)
	}
	_, body = post(t, s.URL()+"/v1/messages/count_tokens", map[string]any{"messages": messages})
	json.Unmarshal(body, &resp)
	if n, _ := resp["input_tokens"].(float64); n <= 0 {
		t.Errorf("count_tokens = %s, want input_tokens > 0", body)
	}
	if got := string(s.Requests()[0].Schemas["mcp__whale__read_file"]); got != `{"type":"object"}` {
		t.Errorf("Schemas[mcp__whale__read_file] = %s, want the input_schema sent", got)
	}
	want := []ToolResult{{CallID: "toolu_1", Tool: "mcp__whale__read_file", Text: "1\tx"}}
	if diff := cmp.Diff(want, s.ToolResults()); diff != "" {
		t.Errorf("ToolResults() mismatch (-want +got):\n%s", diff)
	}
}

func TestMissingToolIsReported(t *testing.T) {
	s := start(t)
	_, body := post(t, s.URL()+"/v1/chat/completions", map[string]any{
		"tools":    []any{map[string]any{"type": "function", "function": map[string]any{"name": "whale_grep"}}},
		"messages": []any{map[string]any{"role": "user", "content": "go"}}})
	if !strings.Contains(string(body), "no offered tool ends with") {
		t.Errorf("answer = %s, want it to say the tool is missing", body)
	}
	if p := s.Requests()[0].Problem; !strings.Contains(p, `"read_file"`) || !strings.Contains(p, "whale_grep") {
		t.Errorf("Problem = %q, want the missing tool and the offered ones", p)
	}
}

func TestGeminiGenerateContent(t *testing.T) {
	s := start(t)
	tools := []any{map[string]any{"functionDeclarations": []any{
		map[string]any{"name": "mcp_whale_read_file", "parametersJsonSchema": map[string]any{"type": "object"}}, map[string]any{"name": "mcp_whale_edit"}}}}
	contents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "go"}}},
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": "call_1", "name": "mcp_whale_read_file", "args": map[string]any{}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "call_1", "name": "mcp_whale_read_file",
			"response": map[string]any{"output": "1\tx"}}}}},
	}
	_, body := post(t, s.URL()+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", map[string]any{"tools": tools, "contents": contents})
	_, events := sseData(t, body)
	if len(events) != 1 {
		t.Fatalf("stream = %s, want one event", body)
	}
	call := get(events[0], "candidates", 0, "content", "parts", 0, "functionCall")
	if get(call, "name") != "mcp_whale_edit" || get(call, "args", "search") != "x" || get(call, "id") != "call_2" {
		t.Errorf("functionCall = %v, want mcp_whale_edit with the step's args", call)
	}
	if get(events[0], "usageMetadata", "totalTokenCount") == nil {
		t.Errorf("no usageMetadata: %s", body)
	}

	// Every step played: the final text, not streamed; and token counting.
	contents = append(contents,
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "mcp_whale_edit", "args": map[string]any{}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "mcp_whale_edit",
			"response": map[string]any{"content": []any{map[string]any{"type": "text", "text": "Edited"}}}}}}})
	_, body = post(t, s.URL()+"/v1beta/models/gemini-2.5-flash:generateContent", map[string]any{"tools": tools, "contents": contents})
	var resp map[string]any
	json.Unmarshal(body, &resp)
	if got := get(resp, "candidates", 0, "content", "parts", 0, "text"); got != "all done" {
		t.Errorf("final text = %v: %s", got, body)
	}
	_, body = post(t, s.URL()+"/v1beta/models/gemini-2.5-flash:countTokens", map[string]any{"contents": contents})
	json.Unmarshal(body, &resp)
	if n, _ := resp["totalTokens"].(float64); n <= 0 {
		t.Errorf("countTokens = %s, want totalTokens > 0", body)
	}
	if got := string(s.Requests()[0].Schemas["mcp_whale_read_file"]); got != `{"type":"object"}` {
		t.Errorf("Schemas[mcp_whale_read_file] = %s, want the parametersJsonSchema sent", got)
	}
	want := []ToolResult{{CallID: "call_1", Tool: "mcp_whale_read_file", Text: "1\tx"}, {Tool: "mcp_whale_edit", Text: "Edited"}}
	if diff := cmp.Diff(want, s.ToolResults()); diff != "" {
		t.Errorf("ToolResults() mismatch (-want +got):\n%s", diff)
	}
}

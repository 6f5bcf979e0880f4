package mcpfront

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// scriptBackend has three tools: echo answers at once (with a repair),
// fail fails with write_conflict, slow waits "ms" milliseconds or until
// its call is canceled, and reports each call's end on ended.
type scriptBackend struct{ ended chan string }

func (scriptBackend) Tools(context.Context) ([]toolbridge.Spec, error) {
	var specs []toolbridge.Spec
	for _, name := range []string{"echo", "fail", "slow"} {
		specs = append(specs, toolbridge.Spec{Name: name, Description: name, InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{"ms": toolbridge.Int("ms", 0)})})
	}
	return specs, nil
}

func (b scriptBackend) Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error) {
	switch name {
	case "echo":
		return toolbridge.Envelope{OK: true, Code: toolbridge.CodeOK, Text: "line 1\nline 2", Repairs: []string{"bare_string_to_array"}}, nil
	case "fail":
		return toolbridge.Envelope{Code: toolbridge.CodeWriteConflict, Text: "a.txt changed since it was read; read it again"}, nil
	}
	var in struct{ Ms int }
	json.Unmarshal(input, &in)
	defer func() { b.ended <- name }()
	select {
	case <-time.After(time.Duration(in.Ms) * time.Millisecond):
		return toolbridge.Envelope{OK: true, Code: toolbridge.CodeOK, Text: "slept"}, nil
	case <-ctx.Done():
		return toolbridge.Envelope{Code: toolbridge.CodeCanceled, Text: "canceled"}, nil
	}
}

// rawClient speaks to Serve line by line, as a client that can send
// anything.
type rawClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	ended chan string // the backend's ends of slow calls
}

// serveRaw runs Serve with the script backend and returns a raw client of
// it; initialized runs the handshake first.
func serveRaw(t *testing.T, o Options, initialized bool) *rawClient {
	t.Helper()
	b := scriptBackend{ended: make(chan string, 16)}
	srv, err := New(context.Background(), b, o)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := returns(func() { srv.Serve(context.Background(), inR, outW) })
	c := &rawClient{t: t, in: inW, lines: make(chan string, 64), ended: b.ended}
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(c.lines)
				return
			}
			c.lines <- line
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		wantDone(t, "Serve's return after the input ended", served)
	})
	if initialized {
		c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		if m := c.next(); m["id"] != "init" || m["result"] == nil {
			t.Fatalf("initialize = %v", m)
		}
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write %.80s: %v", line, err)
	}
}

// nextLine is the next line the server wrote.
func (c *rawClient) nextLine() string {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output: the session ended")
		}
		return line
	case <-time.After(30 * time.Second):
		c.t.Fatal("no message from the server")
	}
	return ""
}

// next is the next message, decoded.
func (c *rawClient) next() map[string]any {
	c.t.Helper()
	line := c.nextLine()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		c.t.Fatalf("server wrote %.200q, not a JSON object: %v", line, err)
	}
	return m
}

// ping checks that the session still answers, and that nothing else came
// first.
func (c *rawClient) ping(id int) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if m := c.next(); m["id"] != float64(id) || m["result"] == nil {
		c.t.Fatalf("ping %d answered %v, want its empty result", id, m)
	}
}

// errorOf returns a response's id and error code ("" and 0 for none).
func errorOf(m map[string]any) (id any, code float64) {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return m["id"], 0
	}
	code, _ = e["code"].(float64)
	return m["id"], code
}

// TestServeAnswersWhatIsNotAMessage: each line below gets one JSON-RPC
// error of the right code and id, and the session goes on.
func TestServeAnswersWhatIsNotAMessage(t *testing.T) {
	c := serveRaw(t, Options{}, true)
	for i, tc := range []struct {
		line string
		id   any
		code float64
	}{
		{`not json`, nil, jsonrpc.CodeParseError},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, nil, jsonrpc.CodeParseError},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, nil, jsonrpc.CodeParseError},
		{`[]`, nil, jsonrpc.CodeInvalidRequest},
		{`[{"jsonrpc":"2.0","method":"notifications/x"}]`, nil, jsonrpc.CodeInvalidRequest},
		{`42`, nil, jsonrpc.CodeInvalidRequest},
		{`"ping"`, nil, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, float64(5), jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, nil, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":"r","method":"resources/list"}`, "r", jsonrpc.CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":"p","method":"prompts/list"}`, "p", jsonrpc.CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":"c","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}}`, "c", jsonrpc.CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":"l","method":"logging/setLevel","params":{"level":"info"}}`, "l", jsonrpc.CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":"u","method":"no/such/method"}`, "u", jsonrpc.CodeMethodNotFound},
	} {
		c.send(tc.line)
		m := c.next()
		if id, code := errorOf(m); id != tc.id || code != tc.code {
			t.Errorf("%.60s answered %v, want error %v with id %v", tc.line, m, tc.code, tc.id)
		}
		c.ping(100 + i)
	}
}

// TestServeAnswersBatchRequests: a batch is answered with one -32600 per
// request in it, as an array, and none of them runs.
func TestServeAnswersBatchRequests(t *testing.T) {
	c := serveRaw(t, Options{}, true)
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"echo","arguments":{}}}]`)
	var replies []map[string]any
	if line := c.nextLine(); json.Unmarshal([]byte(line), &replies) != nil {
		t.Fatalf("batch answered %q, want an array of errors", line)
	}
	var got []string
	for _, r := range replies {
		id, code := errorOf(r)
		got = append(got, fmt.Sprint(id, " ", code))
	}
	if want := []string{"1 -32600", "two -32600"}; !cmp.Equal(got, want) {
		t.Errorf("batch answers = %v, want %v", got, want)
	}
	c.ping(2)
}

// TestServeBeforeInitialize: requests before initialize are -32600 (not
// code 0), ping is answered, and initialize then works.
func TestServeBeforeInitialize(t *testing.T) {
	c := serveRaw(t, Options{}, false)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if id, code := errorOf(c.next()); id != float64(1) || code != jsonrpc.CodeInvalidRequest {
		t.Errorf("tools/list before initialize = id %v code %v, want -32600", id, code)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if id, code := errorOf(c.next()); id != float64(2) || code != jsonrpc.CodeInvalidRequest {
		t.Errorf("tools/call before initialize = id %v code %v, want -32600", id, code)
	}
	c.ping(3)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := c.next()
	res, _ := m["result"].(map[string]any)
	if res["protocolVersion"] != "2025-03-26" {
		t.Fatalf("initialize = %v", m)
	}
	if caps, _ := json.Marshal(res["capabilities"]); string(caps) != `{"tools":{"listChanged":true}}` {
		t.Errorf("capabilities = %s, want tools only", caps)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if m := c.next(); m["result"] == nil {
		t.Errorf("tools/list after initialize = %v", m)
	}
}

// TestServeFailedInitialize: after an initialize that failed, requests are
// still refused with a code.
func TestServeFailedInitialize(t *testing.T) {
	c := serveRaw(t, Options{}, false)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	if id, code := errorOf(c.next()); id != float64(1) || code == 0 {
		t.Errorf("initialize without params = id %v code %v, want an error with a code", id, code)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if id, code := errorOf(c.next()); id != float64(2) || code != jsonrpc.CodeInvalidRequest {
		t.Errorf("tools/list after a failed initialize = id %v code %v, want -32600", id, code)
	}
}

// TestServeAnswersDeepMessagesByShape: a message nested too deep for the
// SDK is answered as its shape asks, and the session goes on.
func TestServeAnswersDeepMessagesByShape(t *testing.T) {
	c := serveRaw(t, Options{}, true)
	deep := strings.Repeat("[", 1500) + strings.Repeat("]", 1500)
	deeper := strings.Repeat("[", 12000) + strings.Repeat("]", 12000)
	for i, tc := range []struct {
		what, line string
		want       string // "" for no answer
	}{
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":` + deep + `}}}`, "tool result"},
		{"tools/call deeper than encoding/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":` + deeper + `}}}`, "tool result"},
		{"another request", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + deep + `}}`, "-32600 1"},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"x":` + deep + `}}`, ""},
		{"a response", `{"jsonrpc":"2.0","id":77,"result":{"x":` + deep + `}}`, ""},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + deep + `}}]`, "-32600 1"},
		{"a batch deeper than encoding/json", `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + deeper + `}}]`, "-32600 <nil>"},
		{"neither", `{"jsonrpc":"2.0","x":` + deep + `}`, "-32600 <nil>"},
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + deep, "-32700 <nil>"},
		{"not JSON, deeper than encoding/json", `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + deeper + `]`, "-32700 <nil>"},
	} {
		c.send(tc.line)
		if tc.want != "" {
			line := c.nextLine()
			var got string
			var m map[string]any
			var batch []map[string]any
			switch {
			case json.Unmarshal([]byte(line), &batch) == nil && len(batch) == 1:
				m = batch[0]
			default:
				json.Unmarshal([]byte(line), &m)
			}
			if res, _ := m["result"].(map[string]any); res != nil {
				text := fmt.Sprint(res["content"])
				if res["isError"] == true && strings.Contains(text, "invalid_input: invalid input for echo: the message nests") {
					got = "tool result"
				}
			} else {
				id, code := errorOf(m)
				got = fmt.Sprint(code, " ", id)
			}
			if got != tc.want {
				t.Errorf("%s answered %.300s, want %s", tc.what, line, tc.want)
			}
		}
		c.ping(100 + i) // also: nothing was answered for a notification or a response
	}
}

// TestServeDropsTheResponseOfACancelledRequest: after
// notifications/cancelled the backend's call is canceled and no response
// for it is sent; the next request is answered.
func TestServeDropsTheResponseOfACancelledRequest(t *testing.T) {
	c := serveRaw(t, Options{}, true)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"ms":60000}}}`)
	time.Sleep(100 * time.Millisecond)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
	select {
	case <-c.ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled call did not end in the backend")
	}
	c.ping(8) // the first message after the cancel is the ping's answer
	// A cancel of a request that was answered already changes nothing.
	c.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if m := c.next(); m["id"] != float64(9) || m["result"] == nil {
		t.Fatalf("echo = %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	c.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if m := c.next(); m["id"] != float64(10) || m["result"] == nil {
		t.Fatalf("echo after a late cancel = %v, want answered", m)
	}
}

// TestServeReportsProgress: with a progressToken, a call that runs longer
// than ProgressEvery gets notifications/progress, increasing, all before
// its result; without a token it gets none.
func TestServeReportsProgress(t *testing.T) {
	c := serveRaw(t, Options{ProgressEvery: 50 * time.Millisecond}, true)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":400},"_meta":{"progressToken":"tok"}}}`)
	var progress []float64
	for {
		m := c.next()
		if m["method"] == "notifications/progress" {
			p, _ := m["params"].(map[string]any)
			if p["progressToken"] != "tok" || !strings.Contains(fmt.Sprint(p["message"]), "slow still running") {
				t.Errorf("progress = %v", p)
			}
			progress = append(progress, p["progress"].(float64))
			continue
		}
		if m["id"] != float64(1) || m["result"] == nil {
			t.Fatalf("got %v, want progress or the result", m)
		}
		break
	}
	if len(progress) < 3 {
		t.Errorf("%d progress notifications for a 400 ms call at 50 ms, want several", len(progress))
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] <= progress[i-1] {
			t.Errorf("progress %v does not increase", progress)
		}
	}
	<-c.ended
	time.Sleep(150 * time.Millisecond)
	c.ping(2) // no progress after the result
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"ms":200}}}`)
	if m := c.next(); m["id"] != float64(3) {
		t.Errorf("a call without a token got %v first, want its result", m)
	}
}

// TestToolResultCarriesTheEnvelopeInMeta: by default a result has the text
// (the code first for a failure), isError, and code, repairs and
// truncation in _meta, and no structured content; with StructuredContent
// it also has the Envelope.
func TestToolResultCarriesTheEnvelopeInMeta(t *testing.T) {
	for _, structured := range []bool{false, true} {
		c := serveRaw(t, Options{StructuredContent: structured}, true)
		for i, tc := range []struct {
			tool, want string
		}{
			{"echo", `{"_meta":{"whale/code":"ok","whale/repairs":["bare_string_to_array"],"whale/truncated":false},"content":[{"text":"line 1\nline 2","type":"text"}]}`},
			{"fail", `{"_meta":{"whale/code":"write_conflict","whale/truncated":false},"content":[{"text":"write_conflict: a.txt changed since it was read; read it again","type":"text"}],"isError":true}`},
		} {
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, i, tc.tool))
			m := c.next()
			res, _ := m["result"].(map[string]any)
			sc, hasSC := res["structuredContent"]
			delete(res, "structuredContent")
			got, _ := json.Marshal(res)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("structured=%v %s result (-want +got):\n%s", structured, tc.tool, diff)
			}
			if hasSC != structured {
				t.Errorf("structured=%v %s: structuredContent present = %v", structured, tc.tool, hasSC)
			}
			if env, _ := sc.(map[string]any); structured && env["code"] != res["_meta"].(map[string]any)["whale/code"] {
				t.Errorf("structured content %v is not the Envelope", sc)
			}
		}
	}
}

// TestToolsDeclareNoOutputSchema: structured content is optional, so no
// tool may declare an outputSchema (the spec then requires it).
func TestToolsDeclareNoOutputSchema(t *testing.T) {
	srv, err := New(context.Background(), scriptBackend{}, Options{StructuredContent: true})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(context.Background(), st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.OutputSchema != nil {
			t.Errorf("%s declares outputSchema %v", tool.Name, tool.OutputSchema)
		}
	}
	// Run has no stdio layer: the middleware answers unadvertised methods.
	if _, err := cs.ListResources(context.Background(), nil); !isCode(err, jsonrpc.CodeMethodNotFound) {
		t.Errorf("resources/list over Run = %v, want method not found", err)
	}
	if _, err := cs.ListPrompts(context.Background(), nil); !isCode(err, jsonrpc.CodeMethodNotFound) {
		t.Errorf("prompts/list over Run = %v, want method not found", err)
	}
}

func isCode(err error, code int64) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire) && wire.Code == code
}

func TestWithCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int64
	}{
		{errors.New("plain"), jsonrpc.CodeInternalError},
		{&jsonrpc.Error{Message: "no code"}, jsonrpc.CodeInternalError},
		{&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"}, jsonrpc.CodeInvalidParams},
		{fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}), jsonrpc.CodeMethodNotFound},
	} {
		if got := withCode(tc.err); !isCode(got, tc.want) {
			t.Errorf("withCode(%v) = %v, want code %d", tc.err, got, tc.want)
		}
	}
}

func TestReadLineDropsLongLines(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nnext\nlast"), 16)
	var got []string
	for {
		line, tooLong, err := readLine(r, 50)
		got = append(got, fmt.Sprintf("%q %v", line, tooLong))
		if err != nil {
			break
		}
	}
	want := []string{`"short\n" false`, `"" true`, `"next\n" false`, `"last" false`}
	if !cmp.Equal(got, want) {
		t.Errorf("readLine = %v, want %v", got, want)
	}
}

func TestTokensValid(t *testing.T) {
	deep := strings.Repeat("[", 12000) + strings.Repeat("]", 12000)
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"a":[1,2]}`, true},
		{deep, true},
		{`{"a":` + deep + `}`, true},
		{deep[:len(deep)-1], false},
		{`{"a":1} {}`, false},
		{`[1 2]`, false},
		{`{"a"}`, false},
	} {
		if got := tokensValid([]byte(tc.in)); got != tc.want {
			t.Errorf("tokensValid(%.40s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

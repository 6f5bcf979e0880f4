package lsp_test

// Hostile input through both fronts, against the real binary: every tool
// of the catalog gets 1 MB strings in each of its string fields (found from
// the input schema the front lists, so a new tool is covered without
// touching this file), deeply nested JSON, and grep gets long and
// pathological patterns against a 1 MB single-line file. Each call must
// answer within hostileBound with a short text, and the server must answer
// the next call; a long grep cancelled must stop and leave the process
// idle.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	"github.com/whale-ls/whale-ls/toolbridge"
)

const (
	// hostileBound is how long one hostile call may take: "a couple of
	// seconds" on an idle machine, generous for a loaded 2-core one.
	hostileBound = 10 * time.Second
	// hostileTextLimit is the most text a hostile call may answer with.
	hostileTextLimit = 8 << 10
	hugeLen          = 1 << 20
	// nestDepth fits in a JSON-RPC message under encoding/json's depth
	// limit of 10000 with the few levels the message itself adds.
	nestDepth = 9990
)

// hugeLine is a 1 MB line of words.
func hugeLine() string {
	r := rand.New(rand.NewPCG(13, 3))
	words := []string{"func", "main", "return", "if", "err", "nil", "x", "y", "foo", "bar", "ab", "ba"}
	var line strings.Builder
	for line.Len() < hugeLen {
		line.WriteString(words[r.IntN(len(words))])
		line.WriteByte(' ')
	}
	return line.String()[:hugeLen]
}

// hostileFiles is the workspace: a small file, a 1 MB single line for grep
// (line.txt) and one for the tools that change files (target.txt, the path
// every path field gets).
func hostileFiles(t *testing.T) string {
	line := hugeLine() + "\n"
	return writeFiles(t, map[string]string{"a.txt": "alpha\nbeta\n", "line.txt": line, "target.txt": line})
}

// schemaOf decodes an input schema as a front lists it.
func schemaOf(t *testing.T, v any) *toolbridge.Schema {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var s toolbridge.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("input schema %s: %v", b, err)
	}
	return &s
}

// plainValue is an ordinary value for a field, so that a call fails (if
// at all) on the hostile field, not on a missing one. Names decide what a
// string holds; none of them reaches outside the machine.
func plainValue(name string, s *toolbridge.Schema) any {
	switch s.Type {
	case "string":
		if len(s.Enum) > 0 {
			return s.Enum[0]
		}
		switch {
		case strings.Contains(name, "url"):
			return "http://127.0.0.1:9/"
		case name == "cwd":
			return "."
		case strings.Contains(name, "path") || strings.Contains(name, "file"):
			return "target.txt"
		case name == "command":
			return "true"
		case name == "task_id":
			return "t999"
		}
		return "x"
	case "integer", "number":
		if s.Minimum != nil && *s.Minimum > 1 {
			return *s.Minimum
		}
		return 1
	case "boolean":
		return false
	case "array":
		if s.Items == nil {
			return []any{}
		}
		return []any{plainValue(name, s.Items)}
	case "object":
		obj := map[string]any{}
		for _, r := range s.Required {
			if ps := s.Properties[r]; ps != nil {
				obj[r] = plainValue(r, ps)
			}
		}
		return obj
	}
	return nil
}

// hostileCase is one call of the battery.
type hostileCase struct {
	tool, what string
	input      json.RawMessage
	// nested marks the deeply nested input, which must be invalid_input.
	nested bool
}

// stringFields lists the paths to every string a schema holds (through
// arrays and objects), each with a setter that puts v there in a copy of
// the plain input.
func stringFields(prefix string, s *toolbridge.Schema) []string {
	var out []string
	switch s.Type {
	case "string":
		out = append(out, prefix)
	case "array":
		if s.Items != nil {
			out = append(out, stringFields(prefix+"[]", s.Items)...)
		}
	case "object":
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := n
			if prefix != "" {
				p = prefix + "." + n
			}
			out = append(out, stringFields(p, s.Properties[n])...)
		}
	}
	return out
}

// withValue returns the plain input of s with v at the field path.
func withValue(s *toolbridge.Schema, path string, v any) any {
	return setPath(s, plainValue("", s), "", path, v)
}

func setPath(s *toolbridge.Schema, cur any, name, path string, v any) any {
	if path == "" {
		return v
	}
	if rest, ok := strings.CutPrefix(path, "[]"); ok {
		rest = strings.TrimPrefix(rest, ".")
		return []any{setPath(s.Items, plainValue(name, s.Items), name, rest, v)}
	}
	field, rest, _ := strings.Cut(path, ".")
	if i := strings.Index(field, "[]"); i >= 0 {
		field, rest = path[:i], path[i:]
	}
	obj, _ := cur.(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	ps := s.Properties[field]
	fv, ok := obj[field]
	if !ok {
		fv = plainValue(field, ps)
	}
	obj[field] = setPath(ps, fv, field, rest, v)
	return obj
}

// hostileCases builds the battery for the tools a front lists: per string
// field a 1 MB string, all of them at once, an unknown 1 MB field name, and
// deeply nested arrays in the first field.
func hostileCases(t *testing.T, tools map[string]*toolbridge.Schema) []hostileCase {
	huge := "hostile-" + strings.Repeat("a", hugeLen-len("hostile-"))
	nested := strings.Repeat("[", nestDepth) + strings.Repeat("]", nestDepth)
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	var cases []hostileCase
	for _, name := range names {
		s := tools[name]
		if strings.HasPrefix(name, "test_") {
			continue // the test binary's own helpers, not tools a model sees
		}
		fields := stringFields("", s)
		all := plainValue("", s)
		for _, f := range fields {
			cases = append(cases, hostileCase{tool: name, what: "1 MB " + f, input: mustJSON(t, withValue(s, f, huge))})
			all = setPath(s, all, "", f, huge)
		}
		if len(fields) > 1 {
			cases = append(cases, hostileCase{tool: name, what: "1 MB in every string field", input: mustJSON(t, all)})
		}
		obj, _ := plainValue("", s).(map[string]any)
		obj[huge] = "x"
		cases = append(cases, hostileCase{tool: name, what: "1 MB field name", input: mustJSON(t, obj)})
		first := "value"
		for _, f := range fieldNames(s) {
			first = f
			break
		}
		obj, _ = plainValue("", s).(map[string]any)
		delete(obj, first)
		rest, _ := json.Marshal(obj)
		raw := []byte(`{"` + first + `":` + nested)
		if len(rest) > 2 {
			raw = append(append(raw, ','), rest[1:]...)
		} else {
			raw = append(raw, '}')
		}
		cases = append(cases, hostileCase{tool: name, what: fmt.Sprintf("%d nested arrays in %s", nestDepth, first), input: raw, nested: true})
	}
	cases = append(cases, hostileCase{tool: "no_such_tool_" + huge, what: "1 MB unknown tool name", input: []byte(`{}`)})
	for name, pattern := range grepHostilePatterns() {
		cases = append(cases, hostileCase{tool: "grep", what: "pattern " + name, input: mustJSON(t, map[string]any{"pattern": pattern, "path": "line.txt"})})
	}
	// The edit tools with 1 MB of text that nearly matches target.txt's
	// line (one byte differs in the middle): the fuzzy matcher's worst
	// work, not a quick "no such text".
	line := hugeLine()
	near := line[:hugeLen/2] + "#" + line[hugeLen/2+1:]
	if _, ok := tools["edit"]; ok {
		cases = append(cases, hostileCase{tool: "edit", what: "1 MB near-miss search", input: mustJSON(t, map[string]any{"file_path": "target.txt", "search": near, "replace": "x"})})
	}
	if _, ok := tools["multi_edit"]; ok {
		cases = append(cases, hostileCase{tool: "multi_edit", what: "1 MB near-miss search", input: mustJSON(t, map[string]any{"file_path": "target.txt", "edits": []any{map[string]any{"search": near, "replace": "x"}}})})
	}
	if _, ok := tools["apply_patch"]; ok {
		patch := "--- a/target.txt\n+++ b/target.txt\n@@ -1,1 +1,1 @@\n-" + near + "\n+x\n"
		cases = append(cases, hostileCase{tool: "apply_patch", what: "1 MB near-miss hunk", input: mustJSON(t, map[string]any{"patch": patch})})
	}
	return cases
}

// fieldNames lists a schema's fields, required ones first.
func fieldNames(s *toolbridge.Schema) []string {
	out := append([]string(nil), s.Required...)
	var rest []string
	for n := range s.Properties {
		if !contains(s.Required, n) {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// grepHostilePatterns are long and pathological patterns for the 1 MB line:
// each costs pattern × line length in Go's regexp, or grows an automaton
// with the text.
func grepHostilePatterns() map[string]string {
	return map[string]string{
		"100 KB literal":         strings.Repeat("func main ", 10<<10),
		"100 KB regexp":          strings.Repeat(`\w+ `, 25<<10),
		"4 KB word classes":      strings.Repeat(`\w+ `, 1000),
		"4 KB classes":           strings.Repeat(`[a-z ]`, 680) + `\d`,
		"4 KB dot-stars":         strings.Repeat(`.*a`, 1300),
		"4 KB alternation":       "(" + strings.Repeat("ab|ba|x y|", 400) + "q)",
		"counted repeats":        strings.Repeat(`[a-z ]{1,9}`, 400),
		"exponential automaton":  `[a-z ]*a[a-z ]{500}Q`,
		"4 KB fixed string":      strings.Repeat("nil err ", 512),
		"4 KB case-insensitive":  "(?i)" + strings.Repeat("ERR NIL ", 511),
		"huge repeat count":      `(\w{1000}){1000}`,
		"nested groups":          strings.Repeat("(", 1000) + "a" + strings.Repeat(")*", 1000),
		"many empty assertions":  strings.Repeat(`\b`, 4000),
		"invalid and very long":  "(" + strings.Repeat("x", 8<<10),
		"all alternatives empty": strings.Repeat("|", 4000),
	}
}

// hostileCaller is one front: call runs a tool with raw input and returns
// its Envelope.
type hostileCaller interface {
	call(ctx context.Context, tool string, input json.RawMessage) (toolbridge.Envelope, error)
	pid() int
}

// runHostile runs the battery through c: each call within the bound, with
// a short answer, and a working server afterwards.
func runHostile(t *testing.T, c hostileCaller, tools map[string]*toolbridge.Schema) {
	for _, hc := range hostileCases(t, tools) {
		name := hc.tool
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name+"/"+hc.what, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*hostileBound)
			defer cancel()
			start := time.Now()
			env, err := c.call(ctx, hc.tool, hc.input)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s with %s: no answer after %v: %v", hc.tool, hc.what, took.Round(time.Millisecond), err)
			}
			if took > hostileBound {
				t.Errorf("%s with %s took %v, more than %v", hc.tool, hc.what, took.Round(time.Millisecond), hostileBound)
			}
			if len(env.Text) > hostileTextLimit {
				t.Errorf("%s with %s answered %s with %d bytes of text, more than %d: %.300q", hc.tool, hc.what, env.Code, len(env.Text), hostileTextLimit, env.Text)
			}
			if hc.nested && env.Code != toolbridge.CodeInvalidInput {
				t.Errorf("%s with %s = %s %.300q, want invalid_input", hc.tool, hc.what, env.Code, env.Text)
			}
			if !env.OK && env.Code == toolbridge.CodeInternal {
				t.Errorf("%s with %s = internal %.300q; hostile input is the model's mistake, not a bug, and must say what to change", hc.tool, hc.what, env.Text)
			}
			t.Logf("%s with %s: %s in %v, %d bytes: %.160q", hc.tool, hc.what, env.Code, took.Round(time.Millisecond), len(env.Text), env.Text)
			next, err := c.call(ctx, "read_file", json.RawMessage(`{"file_path":"a.txt"}`))
			if err != nil || !next.OK || !strings.Contains(next.Text, "beta") {
				t.Fatalf("the call after %s with %s = %v %s %.200q; the server must keep working", hc.tool, hc.what, err, next.Code, next.Text)
			}
		})
	}
}

// lspFront calls tools through workspace/executeCommand.
type lspFront struct{ s *session }

func (f lspFront) call(ctx context.Context, tool string, input json.RawMessage) (toolbridge.Envelope, error) {
	res, err := f.s.server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{
		Command:   "whale." + tool,
		Arguments: []protocol.LSPAny{protocol.LSPAny(input)},
	})
	if err != nil {
		return toolbridge.Envelope{}, err
	}
	var env toolbridge.Envelope
	if err := json.Unmarshal(res, &env); err != nil {
		return env, fmt.Errorf("result %.200s is not an Envelope: %v", res, err)
	}
	return env, nil
}

func (f lspFront) pid() int { return f.s.cmd.Process.Pid }

// mcpFront calls tools through an MCP client session.
type mcpFront struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

func (f mcpFront) call(ctx context.Context, tool string, input json.RawMessage) (toolbridge.Envelope, error) {
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: input})
	if err != nil {
		return toolbridge.Envelope{}, err
	}
	var env toolbridge.Envelope
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &env); err != nil || env.Code == "" {
		// No Envelope in structured content (whale-ls mcp without
		// --structured): the text, and the code from _meta.
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		code, _ := res.Meta["whale/code"].(string)
		if code == "" {
			code = "?"
		}
		env = toolbridge.Envelope{OK: !res.IsError, Code: code, Text: text.String()}
	}
	return env, nil
}

func (f mcpFront) pid() int { return f.cmd.Process.Pid }

// lspTools lists the tools and their schemas from whale/tools.
func lspTools(t *testing.T, s *session) map[string]*toolbridge.Schema {
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/tools", nil, &list); err != nil || len(list.Tools) == 0 {
		t.Fatalf("whale/tools = %+v, %v", list, err)
	}
	out := map[string]*toolbridge.Schema{}
	for _, tool := range list.Tools {
		out[tool.Name] = schemaOf(t, tool.InputSchema)
	}
	return out
}

// startMCP runs `whale-ls mcp` on root and keeps its command for the pid.
func startMCP(t *testing.T, root string) mcpFront {
	cmd := exec.Command(whaleBinary(t), "mcp", "--root", root)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	cs, err := client.Connect(ctxT(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to whale-ls mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return mcpFront{cs: cs, cmd: cmd}
}

func mcpTools(t *testing.T, f mcpFront) map[string]*toolbridge.Schema {
	list, err := f.cs.ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*toolbridge.Schema{}
	for _, tool := range list.Tools {
		out[tool.Name] = schemaOf(t, tool.InputSchema)
	}
	return out
}

// TestHostileInputLSP runs the battery through the language server. The
// edit tools (edit, multi_edit, apply_patch, write) are in it like every
// other tool: their subtests name them when they are slow on 1 MB input.
func TestHostileInputLSP(t *testing.T) {
	s := start(t, hostileFiles(t), sessionOptions{})
	runHostile(t, lspFront{s}, lspTools(t, s))
}

// TestHostileInputMCP runs the battery through `whale-ls mcp`.
func TestHostileInputMCP(t *testing.T) {
	f := startMCP(t, hostileFiles(t))
	runHostile(t, f, mcpTools(t, f))
}

// slowGrepFiles is a workspace where one grep takes many seconds of honest
// work: each file is one 1 MB line on which the pattern below needs about
// a quarter of a second of automaton building (under the per-file limit),
// so a cancel arrives in the middle of a line.
func slowGrepFiles(t *testing.T) string {
	r := rand.New(rand.NewPCG(7, 7))
	files := map[string]string{"a.txt": "alpha\nbeta\n"}
	for i := range 48 {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = "ab"[r.IntN(2)]
		}
		b[len(b)-1] = 'c'
		files[fmt.Sprintf("d%d/f%02d.txt", i%4, i)] = string(b)
	}
	return writeFiles(t, files)
}

var slowGrepPattern = `[ab]*a[ab]{11}c`

// cpuTicks is the process's user + system time in clock ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("read /proc/%d/stat: %v", pid, err)
	}
	// Fields after the command name, which is in parentheses: state is
	// field 3, utime 14 and stime 15.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return utime + stime
}

// wantIdle samples the process's CPU time over a second: a search that
// stopped leaves at most a few ticks (1 tick = 10 ms) of work.
func wantIdle(t *testing.T, pid int) {
	t.Helper()
	before := cpuTicks(t, pid)
	time.Sleep(time.Second)
	if used := cpuTicks(t, pid) - before; used > 10 {
		t.Errorf("whale-ls used %d ticks of CPU in the second after the cancel; the search did not stop", used)
	}
}

// TestHostileGrepCancelLSP cancels a long grep with $/cancelRequest: the
// answer is canceled, soon, and the server is idle afterwards.
func TestHostileGrepCancelLSP(t *testing.T) {
	s := start(t, slowGrepFiles(t), sessionOptions{})
	type answer struct {
		env toolbridge.Envelope
		err error
	}
	done := make(chan answer, 1)
	go func() {
		env, err := lspFront{s}.call(context.Background(), "grep", mustJSON(t, map[string]any{"pattern": slowGrepPattern, "output_mode": "count"}))
		done <- answer{env, err}
	}()
	// The request's id, from the wire, for a $/cancelRequest of our own:
	// the client library would drop the answer of a call it cancelled.
	idRe := regexp.MustCompile(`\{[^\n]*"command":"whale.grep"[^\n]*"id":(\d+)`)
	var id int
	waitFor(t, "the grep on the wire", func() bool {
		m := idRe.FindStringSubmatch(s.tr.String())
		if m != nil {
			id, _ = strconv.Atoi(m[1])
		}
		return m != nil
	})
	time.Sleep(500 * time.Millisecond)
	select {
	case a := <-done:
		t.Fatalf("the grep finished before it was cancelled (%s %.200q): the workspace is too small to test cancellation", a.env.Code, a.env.Text)
	default:
	}
	cancelled := time.Now()
	if err := s.conn.Notify(ctxT(t), "$/cancelRequest", map[string]any{"id": id}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-done:
		took := time.Since(cancelled)
		if a.err != nil || a.env.Code != toolbridge.CodeCanceled {
			t.Fatalf("cancelled grep = %v %s %.200q, want canceled", a.err, a.env.Code, a.env.Text)
		}
		t.Logf("the cancelled grep answered after %v", took.Round(time.Millisecond))
		if took > 2*time.Second {
			t.Errorf("the cancelled grep answered %v after the cancel", took.Round(time.Millisecond))
		}
	case <-time.After(hostileBound):
		t.Fatalf("no answer %v after the cancel", hostileBound)
	}
	wantIdle(t, s.cmd.Process.Pid)
	wantText(t, s.exec(ctxT(t), "read_file", map[string]any{"file_path": "a.txt"}), "beta")
}

// TestHostileGrepCancelMCP cancels a long grep through the MCP client
// (notifications/cancelled): the server goes idle and answers the next call.
func TestHostileGrepCancelMCP(t *testing.T) {
	f := startMCP(t, slowGrepFiles(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.call(ctx, "grep", mustJSON(t, map[string]any{"pattern": slowGrepPattern, "output_mode": "count"}))
		done <- err
	}()
	// Wait until the search burns CPU, then cancel.
	start := cpuTicks(t, f.pid())
	waitFor(t, "the grep at work", func() bool { return cpuTicks(t, f.pid())-start > 30 })
	select {
	case err := <-done:
		t.Fatalf("the grep finished before it was cancelled (%v): the workspace is too small to test cancellation", err)
	default:
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	time.Sleep(200 * time.Millisecond)
	wantIdle(t, f.pid())
	env, err := f.call(ctxT(t), "read_file", json.RawMessage(`{"file_path":"a.txt"}`))
	if err != nil || !strings.Contains(env.Text, "beta") {
		t.Fatalf("the call after the cancel = %v %s %.200q", err, env.Code, env.Text)
	}
}

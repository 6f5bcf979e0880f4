package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// proxiedCatalog is a catalog over the test server's schema tools, served
// as the server "up".
func proxiedCatalog(t *testing.T, deferred bool) *toolbridge.Registry {
	t.Helper()
	_, r := mcpCatalog(t, fmt.Sprintf(`{"up": {"command": %q, "args": ["up", %q], "deferred": %v}}`, mcptest.Server(t), mcptest.SchemasArg, deferred))
	return r
}

// hashedName is the shortened name the test expects: a prefix of the
// sanitized name, _ and 6 hex digits of SHA-256(server NUL tool).
func hashedName(server, tool, readable string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return readable + "_" + hex.EncodeToString(sum[:])[:6]
}

// upstreamArgs decodes the "args: {...}" answer of a schema tool.
func upstreamArgs(t *testing.T, env toolbridge.Envelope) map[string]any {
	t.Helper()
	raw, ok := strings.CutPrefix(env.Text, "args: ")
	if env.Code != toolbridge.CodeOK || !ok {
		t.Fatalf("call = %s %q, want the server's args: answer", env.Code, env.Text)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatalf("the server received %s: %v", raw, err)
	}
	return args
}

func TestProxiedToolNames(t *testing.T) {
	r := proxiedCatalog(t, false)
	long := hashedName("up", mcptest.LongToolName, ("mcp__up__" + mcptest.LongToolName)[:57])
	want := map[string]string{ // server's name → catalog name
		"nullable_fields":    "mcp__up__nullable_fields",
		"dot_name":           "mcp__up__dot_name",
		"dot.name":           hashedName("up", "dot.name", "mcp__up__dot_name"),
		mcptest.LongToolName: long,
		"no_params":          "mcp__up__no_params",
		"echo":               "mcp__up__echo",
		"search_issues":      "mcp__up__search_issues",
	}
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	listed := map[string]bool{}
	for _, s := range r.Specs() {
		listed[s.Name] = true
		if !valid.MatchString(s.Name) {
			t.Errorf("tool name %q (%d characters) is not 1 to 64 letters, digits, - and _", s.Name, len(s.Name))
		}
		if len(s.Description) > mcpMaxDescription {
			t.Errorf("%s: description of %d bytes, want at most %d", s.Name, len(s.Description), mcpMaxDescription)
		}
	}
	for server, name := range want {
		if !listed[name] {
			t.Errorf("tool %q is not listed as %q; listed: %v", server, name, r.Names())
		}
		if got := mcpToolName("up", server); got != name {
			t.Errorf("mcpToolName(up, %q) = %q, want %q", server, got, name)
		}
	}
	if len(long) != 64 {
		t.Errorf("shortened name %q has %d characters, want 64", long, len(long))
	}
	for _, s := range r.Specs() {
		if s.Name == long && (!strings.HasPrefix(s.Description, mcptest.LongDescription[:200]) || !strings.Contains(s.Description, " …\n\n(MCP tool \""+mcptest.LongToolName)) {
			t.Errorf("description of the long tool = %q, want its start, … and the note naming the tool", s.Description)
		}
	}

	// The short name and the full name reach the same upstream tool.
	for _, name := range []string{long, "mcp__up__" + mcptest.LongToolName} {
		args := upstreamArgs(t, call(t, r, name, map[string]any{"path": "a/b.txt"}))
		if args["path"] != "a/b.txt" {
			t.Errorf("call by %q: the server received %v", name, args)
		}
	}
	// dot.name and dot_name stay two tools.
	for _, name := range []string{"mcp__up__dot_name", hashedName("up", "dot.name", "mcp__up__dot_name"), "mcp__up__dot.name"} {
		if env := call(t, r, name, map[string]any{}); env.Code != toolbridge.CodeOK {
			t.Errorf("call by %q = %s %q", name, env.Code, env.Text)
		}
	}
	// The full name is an alias, not a listed tool.
	for _, name := range r.Names() {
		if len(name) > 64 {
			t.Errorf("Names() lists %q", name)
		}
	}
	// A too long server name is refused with the reason.
	_, err := parseMCPServers([]byte(`{"` + strings.Repeat("s", 41) + `": {"command": "x"}}`))
	if err == nil || !strings.Contains(err.Error(), "use at most 40") {
		t.Errorf("a 41-character server name: %v, want refused", err)
	}
}

// TestProxiedSchemasAreFaithful: every schema is listed as the server wrote
// it, except that local $refs are inlined (unless cyclic), bare arrays get
// items: {} and objects without properties get properties: {}.
func TestProxiedSchemasAreFaithful(t *testing.T) {
	r := proxiedCatalog(t, false)
	upstream := map[string]json.RawMessage{}
	for _, tool := range mcptest.SchemaTools() {
		upstream[tool.Name] = tool.Schema
	}
	person := `{"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": ["string", "null"]}}, "required": ["name"]}`
	want := map[string]string{
		"nullable_fields": string(upstream["nullable_fields"]),
		"any_of":          string(upstream["any_of"]),
		"refs": `{
			"type": "object",
			"properties": {
				"author": {"type": "object", "description": "who wrote it", "properties": {"name": {"type": "string"}, "email": {"type": ["string", "null"]}}, "required": ["name"]},
				"reviewers": {"type": "array", "items": ` + person + `},
				"priority": {"type": "string", "enum": ["low", "high"]}
			},
			"required": ["author"]
		}`,
		"tree": `{
			"type": "object",
			"$defs": {
				"node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
			},
			"properties": {
				"root": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
			}
		}`,
		"bare_array": `{
			"type": "object",
			"properties": {
				"values": {"type": "array", "description": "anything at all", "items": {}},
				"options": {"type": "object", "properties": {}},
				"meta": {"type": "object", "properties": {}}
			}
		}`,
		"no_params":          string(upstream["no_params"]),
		mcptest.LongToolName: string(upstream[mcptest.LongToolName]),
		"dot.name":           string(upstream["dot.name"]),
	}
	specs := map[string]toolbridge.Spec{}
	for _, s := range r.Specs() {
		specs[s.Name] = s
	}
	for tool, schema := range want {
		spec, ok := specs[mcpToolName("up", tool)]
		if !ok {
			t.Errorf("%s is not listed", tool)
			continue
		}
		got, err := json.Marshal(spec.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: listed schema %s: %v", tool, got, err)
		}
		if err := json.Unmarshal([]byte(schema), &w); err != nil {
			t.Fatalf("%s: wanted schema: %v", tool, err)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s: listed schema differs from the server's (-want +got):\n%s\nlisted: %s", tool, diff, got)
		}
	}
}

// TestProxiedNullsAreForwarded: a null reaches the server as null, also
// where whale repairs another field of the same call, and a null in a
// required nullable field is no missing field.
func TestProxiedNullsAreForwarded(t *testing.T) {
	r := proxiedCatalog(t, false)
	name := "mcp__up__nullable_fields"
	env := call(t, r, name, map[string]any{"title": "t", "milestone": nil, "labels": nil, "state": nil})
	args := upstreamArgs(t, env)
	for _, k := range []string{"milestone", "labels", "state"} {
		if v, ok := args[k]; !ok || v != nil {
			t.Errorf("%s: the server received %v, want %s: null", name, args, k)
		}
	}
	if len(env.Repairs) != 0 {
		t.Errorf("repairs = %v, want none", env.Repairs)
	}
	// A repair elsewhere leaves the nulls alone.
	env = call(t, r, name, map[string]any{"title": "t", "milestone": "7", "labels": nil, "extra": map[string]any{"x": nil}})
	args = upstreamArgs(t, env)
	if args["milestone"] != float64(7) || args["labels"] != nil || args["extra"].(map[string]any)["x"] != nil || len(env.Repairs) != 1 {
		t.Errorf("the server received %v with repairs %v, want milestone 7 (numeric string repaired) and the nulls kept", args, env.Repairs)
	}
	if _, ok := args["labels"]; !ok {
		t.Errorf("labels: null was dropped: %v", args)
	}
	// Nulls inside a nested object, in arrays and in anyOf fields.
	args = upstreamArgs(t, call(t, r, "mcp__up__any_of", map[string]any{"target": nil, "window": map[string]any{"from": nil}}))
	if v, ok := args["target"]; !ok || v != nil || args["window"].(map[string]any)["from"] != nil {
		t.Errorf("any_of: the server received %v", args)
	}
	args = upstreamArgs(t, call(t, r, "mcp__up__bare_array", map[string]any{"values": []any{nil, 1, "x"}}))
	if fmt.Sprint(args["values"]) != "[<nil> 1 x]" {
		t.Errorf("bare_array: the server received %v", args)
	}

	// What the server's schema rules out is still caught before sending.
	for _, tc := range []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"milestone": nil}, "title is required"},
		{map[string]any{"title": "t", "milestone": "x"}, "milestone must be a number"},
		{map[string]any{"title": "t", "milestone": json.Number("0")}, "milestone must be at least 1"},
		{map[string]any{"title": 5, "milestone": nil}, "title must be a string"},
	} {
		env := call(t, r, name, tc.input)
		if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, tc.want) {
			t.Errorf("%s(%v) = %s %q, want invalid_input with %q", name, tc.input, env.Code, env.Text, tc.want)
		}
	}
	// Input sent exactly as written when nothing needs repair.
	env = r.Dispatch(t.Context(), toolbridge.Call{Name: name, Input: json.RawMessage(`{"title":"t","milestone":12345678901234567890,"due":null}`)})
	if env.Text != `args: {"title":"t","milestone":12345678901234567890,"due":null}` {
		t.Errorf("raw call = %s %q, want the bytes forwarded", env.Code, env.Text)
	}
}

// TestProxiedDeferredToolsByFullName: a deferred tool activates by its
// short name, by its full name and through tool_search by either.
func TestProxiedDeferredToolsByFullName(t *testing.T) {
	r := proxiedCatalog(t, true)
	full := "mcp__up__" + mcptest.LongToolName
	short := mcpToolName("up", mcptest.LongToolName)
	if args := upstreamArgs(t, call(t, r, full, map[string]any{"path": "p"})); args["path"] != "p" {
		t.Errorf("first call by the full name: the server received %v", args)
	}
	if got := strings.Join(r.Names(), ","); got != "tool_search,"+short {
		t.Errorf("catalog after a call by the full name = %s, want the short name listed", got)
	}
	if args := upstreamArgs(t, call(t, r, short, map[string]any{"path": "q"})); args["path"] != "q" {
		t.Errorf("call by the short name: the server received %v", args)
	}

	r = proxiedCatalog(t, true)
	env := call(t, r, "tool_search", map[string]any{"query": full + ", dot.name"})
	dot := mcpToolName("up", "dot.name")
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, short) || !strings.Contains(env.Text, dot) || strings.Contains(env.Text, "mcp__up__dot_name\n") {
		t.Errorf("tool_search by full names = %s %q, want %s and %s", env.Code, env.Text, short, dot)
	}
	if got := strings.Join(r.Names(), ","); got != "tool_search,"+short+","+dot {
		t.Errorf("catalog after tool_search = %s", got)
	}
	env = call(t, r, "mcp__up__nullable_field", map[string]any{})
	if env.Code != toolbridge.CodeUnknownTool || !strings.Contains(env.Text, `"mcp__up__nullable_fields"`) {
		t.Errorf("misspelt deferred tool = %s %q, want its closest name", env.Code, env.Text)
	}
}

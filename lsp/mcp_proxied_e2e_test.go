package lsp_test

// Tools of a configured MCP server whose schemas use what whale's own tools
// do not (nullable type lists, anyOf, $ref, bare arrays, a 95-character
// name), through the real binary: listed with names of at most 64
// characters and faithful schemas, called by their short and their full
// names, with nulls reaching the server as null. Over LSP and over
// `whale-ls mcp`.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
)

// schemaServer is the mcp setting with the test server's schema tools as
// the server "up".
func schemaServer(t *testing.T) map[string]any {
	return map[string]any{"mcp": map[string]any{"servers": map[string]any{
		"up": map[string]any{"command": mcptest.Server(t), "args": []string{"up", mcptest.SchemasArg}},
	}}}
}

var toolNameRule = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// proxiedChecks are what both fronts must show of the "up" tools: each
// listed schema, decoded, compared with what the server wrote.
func proxiedChecks(t *testing.T, schemas map[string]json.RawMessage) (long string) {
	t.Helper()
	for name := range schemas {
		if !toolNameRule.MatchString(name) {
			t.Errorf("listed tool name %q (%d characters) is not 1 to 64 letters, digits, _ or -", name, len(name))
		}
		if strings.HasPrefix(name, "mcp__up__create_or_update") {
			long = name
		}
	}
	if long == "" {
		t.Fatalf("the 95-character tool is not listed: %v", schemas)
	}
	for _, tc := range []struct{ tool, want string }{
		{"mcp__up__nullable_fields", string(schemaOfTool(t, "nullable_fields"))},
		{"mcp__up__any_of", string(schemaOfTool(t, "any_of"))},
		{"mcp__up__bare_array", `{"type":"object","properties":{"values":{"type":"array","description":"anything at all","items":{}},"options":{"type":"object","properties":{}},"meta":{"type":"object","properties":{}}}}`},
		{"mcp__up__refs", `{"type":"object","properties":{
			"author":{"type":"object","description":"who wrote it","properties":{"name":{"type":"string"},"email":{"type":["string","null"]}},"required":["name"]},
			"reviewers":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":["string","null"]}},"required":["name"]}},
			"priority":{"type":"string","enum":["low","high"]}},"required":["author"]}`},
	} {
		var got, want any
		if err := json.Unmarshal(schemas[tc.tool], &got); err != nil {
			t.Fatalf("%s: listed schema %s: %v", tc.tool, schemas[tc.tool], err)
		}
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: listed schema (-want +got):\n%s", tc.tool, diff)
		}
	}
	return long
}

func schemaOfTool(t *testing.T, name string) json.RawMessage {
	for _, tool := range mcptest.SchemaTools() {
		if tool.Name == name {
			return tool.Schema
		}
	}
	t.Fatalf("no schema tool %s", name)
	return nil
}

// serverArgs decodes the "args: {...}" answer of a schema tool.
func serverArgs(t *testing.T, text string) map[string]any {
	t.Helper()
	raw, ok := strings.CutPrefix(text, "args: ")
	var args map[string]any
	if !ok || json.Unmarshal([]byte(raw), &args) != nil {
		t.Fatalf("answer %q, want the server's args: answer", text)
	}
	return args
}

func TestProxiedMCPToolsOverLSP(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{initOptions: schemaServer(t)})
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/tools", nil, &list); err != nil {
		t.Fatalf("whale/tools: %v", err)
	}
	schemas := map[string]json.RawMessage{}
	for _, tool := range list.Tools {
		schemas[tool.Name] = tool.InputSchema
	}
	long := proxiedChecks(t, schemas)
	for _, name := range []string{long, "mcp__up__" + mcptest.LongToolName} {
		env := s.exec(ctxT(t), name, map[string]any{"path": "a.txt"})
		if args := serverArgs(t, env.Text); args["path"] != "a.txt" {
			t.Errorf("whale.%s: the server received %v", name, args)
		}
	}
	env := s.exec(ctxT(t), "mcp__up__nullable_fields", map[string]any{"title": "t", "milestone": nil, "labels": nil})
	args := serverArgs(t, env.Text)
	if v, ok := args["milestone"]; !ok || v != nil || args["labels"] != nil || len(env.Repairs) != 0 {
		t.Errorf("nulls: the server received %v (repairs %v), want milestone and labels null", args, env.Repairs)
	}
}

func TestProxiedMCPToolsOverMCP(t *testing.T) {
	root := writeFiles(t, nil)
	cfg := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(cfg, mustJSON(t, schemaServer(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, _ := listChangedClient(t, t.TempDir(), "--standalone", "--root", root, "--config", cfg)
	tools, err := cs.ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]json.RawMessage{}
	for _, tool := range tools.Tools {
		schemas[tool.Name] = mustJSON(t, tool.InputSchema)
	}
	long := proxiedChecks(t, schemas)
	for _, name := range []string{long, "mcp__up__" + mcptest.LongToolName} {
		text, isErr, _ := mcpCall(t, cs, name, map[string]any{"path": "a.txt"})
		if args := serverArgs(t, text); isErr || args["path"] != "a.txt" {
			t.Errorf("tools/call %s: the server received %v (isError %v)", name, args, isErr)
		}
	}
	text, isErr, _ := mcpCall(t, cs, "mcp__up__any_of", map[string]any{"target": nil, "window": map[string]any{"from": nil}})
	args := serverArgs(t, text)
	if v, ok := args["target"]; isErr || !ok || v != nil || args["window"].(map[string]any)["from"] != nil {
		t.Errorf("nulls: the server received %v (isError %v), want target and window.from null", args, isErr)
	}
}

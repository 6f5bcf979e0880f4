package catalog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// The rules every tool schema keeps, so that every host accepts whale's
// tools whichever model provider it forwards them to (issue #14; the
// sources are in ../shared/FIELD-NOTES.md, "Model providers' tool-schema
// rules"):
//
//   - json-schema: well-formed for draft-07 and for 2020-12 (compiled
//     against both metaschemas), keywords that JSON Schema defines,
//     required naming properties that exist.
//   - openai: the root is an object; every object schema has properties
//     ("object schema missing properties") and every array items.
//   - anthropic: input_schema is an object, with no anyOf, oneOf or allOf
//     at the top level.
//   - gemini: as its SDKs convert a schema into a function declaration:
//     additionalProperties is dropped, and then no object below the root
//     may be left without properties ("should be non-empty for OBJECT
//     type"; an empty root becomes a declaration without parameters);
//     properties only on objects, enum only on strings, required only
//     naming properties, arrays with items.
//   - vscode: arrays have items; the name is at most 64 characters of
//     letters, digits, _ and - (also OpenAI's and Anthropic's rule).
//
// OpenAI's strict mode asks more (openAIStrictProblems): every object
// with additionalProperties: false and every property required. Which
// tools keep to it is asserted by TestStrictModeTools.

// schemaRuleProblems checks one tool as a front lists it: its name and its
// input schema as JSON (json.Marshal of Spec.InputSchema). It returns one
// line per broken rule, each starting with the rule set it breaks
// ("openai: /properties/env: object schema without properties"), nil when
// every host accepts the tool. Tests of proxied MCP tools call it on their
// specs too.
func schemaRuleProblems(name string, schema []byte) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if !toolNameRule.MatchString(name) {
		add("vscode, openai, anthropic: the name %q is not 1 to 64 letters, digits, _ or -", name)
	}
	root, err := decodeNumbers(schema)
	if err != nil {
		return append(problems, "json-schema: not JSON: "+err.Error())
	}
	for _, draft := range []struct {
		name  string
		draft *jsonschema.Draft
	}{{"draft-07", jsonschema.Draft7}, {"2020-12", jsonschema.Draft2020}} {
		if err := compileSchema(schema, draft.draft); err != nil {
			add("json-schema %s: %v", draft.name, err)
		}
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return append(problems, "json-schema: the input schema is not a JSON object")
	}
	if !hasType(obj, "object") {
		add("openai, anthropic, gemini: the input schema's type is %v, not \"object\"", obj["type"])
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "enum"} {
		if _, ok := obj[k]; ok {
			add("anthropic, openai: %s at the top level of an input schema", k)
		}
	}
	walkSchema(obj, "", func(s map[string]any, where string) {
		for k := range s {
			if !schemaKeywords[k] {
				add("json-schema: %s: %q is not a JSON Schema keyword (Gemini refuses unknown fields)", where, k)
			}
		}
		props, hasProps := s["properties"].(map[string]any)
		if _, ok := s["properties"]; ok && !hasProps {
			add("json-schema: %s: properties is not an object", where)
		}
		if req, ok := s["required"]; ok {
			list, ok := req.([]any)
			if !ok {
				add("json-schema: %s: required is not a list", where)
			}
			for _, r := range list {
				if rs, _ := r.(string); props == nil || props[rs] == nil {
					add("json-schema, gemini: %s: required names %v, which is not among its properties", where, r)
				}
			}
		}
		isObject := hasType(s, "object")
		if isObject && !hasProps {
			add("openai: %s: object schema without properties", where)
		}
		if hasProps && !isObject {
			add("gemini: %s: properties on a schema whose type is %v, not object", where, s["type"])
		}
		if isObject && where != "/" && len(props) == 0 {
			add("gemini: %s: an object without properties once additionalProperties is dropped (\"should be non-empty for OBJECT type\"); give it properties or make it a list of {name, value}", where)
		}
		if hasType(s, "array") {
			if items, ok := s["items"].(map[string]any); !ok {
				add("vscode, openai, gemini: %s: array schema without an items schema", where)
			} else if len(items) == 0 {
				add("gemini: %s: array items without a type", where)
			}
		}
		if _, ok := s["enum"]; ok && !hasType(s, "string") {
			add("gemini: %s: enum on a schema whose type is %v, not string", where, s["type"])
		}
		if ap, ok := s["additionalProperties"]; ok {
			if _, isBool := ap.(bool); !isBool {
				if _, isSchema := ap.(map[string]any); !isSchema {
					add("json-schema: %s: additionalProperties is neither a boolean nor a schema", where)
				}
			}
		}
		if d, ok := s["description"]; ok {
			if ds, ok := d.(string); !ok || len(ds) > toolbridge.MaxDescriptionBytes {
				add("openai: %s: the description is not a string of at most %d bytes", where, toolbridge.MaxDescriptionBytes)
			}
		}
	})
	return problems
}

// openAIStrictProblems says why OpenAI's strict mode (structured outputs)
// would refuse the schema as it is: an object that allows other fields or
// leaves a property optional, or a keyword strict mode does not support.
// No problems: the tool may be sent with "strict": true unchanged.
func openAIStrictProblems(schema []byte) []string {
	root, err := decodeNumbers(schema)
	if err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return []string{"the schema is not a JSON object"}
	}
	var problems []string
	walkSchema(obj, "", func(s map[string]any, where string) {
		for k := range s {
			if !strictKeywords[k] {
				problems = append(problems, fmt.Sprintf("%s: strict mode does not support %q", where, k))
			}
		}
		if !hasType(s, "object") {
			return
		}
		if s["additionalProperties"] != false {
			problems = append(problems, where+": additionalProperties is not false")
		}
		props, _ := s["properties"].(map[string]any)
		required := map[string]bool{}
		if list, ok := s["required"].([]any); ok {
			for _, r := range list {
				if rs, ok := r.(string); ok {
					required[rs] = true
				}
			}
		}
		var optional []string
		for k := range props {
			if !required[k] {
				optional = append(optional, k)
			}
		}
		sort.Strings(optional)
		if len(optional) > 0 {
			problems = append(problems, fmt.Sprintf("%s: optional properties %s (strict mode needs every property required)", where, strings.Join(optional, ", ")))
		}
	})
	sort.Strings(problems)
	return problems
}

// toolNameRule is the tool name OpenAI, Anthropic and VS Code accept.
var toolNameRule = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// schemaKeywords are the keywords of JSON Schema draft-07 and 2020-12 that
// a tool schema may use.
var schemaKeywords = setOf(
	"$schema", "$id", "$ref", "$defs", "definitions", "$comment", "$anchor",
	"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
	"type", "enum", "const",
	"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
	"minProperties", "maxProperties", "dependentRequired",
	"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
	"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"anyOf", "oneOf", "allOf", "not",
)

// strictKeywords are the keywords OpenAI's strict mode supports.
var strictKeywords = setOf(
	"$ref", "$defs", "definitions", "title", "description",
	"type", "enum", "const", "properties", "required", "additionalProperties",
	"items", "minItems", "maxItems", "pattern", "format",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "anyOf",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// compileSchema compiles schema as a schema of draft, which checks it
// against that draft's metaschema.
func compileSchema(schema []byte, draft *jsonschema.Draft) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return err
	}
	if m, ok := doc.(map[string]any); ok {
		delete(m, "$schema") // judged by the draft given, whatever it names
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	const url = "mem://tool/input.json"
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	_, err = c.Compile(url)
	return err
}

// hasType says whether s's type is t or a list holding t.
func hasType(s map[string]any, t string) bool {
	switch x := s["type"].(type) {
	case string:
		return x == t
	case []any:
		return slices.Contains(x, any(t))
	}
	return false
}

// walkSchema calls visit on s and every schema inside it, each with its
// JSON pointer ("/" for s, which walkSchema is given as at "").
func walkSchema(s map[string]any, at string, visit func(s map[string]any, where string)) {
	visit(s, cmp.Or(at, "/"))
	sub := func(v any, where string) {
		if m, ok := v.(map[string]any); ok {
			walkSchema(m, where, visit)
		}
	}
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions"} {
		if m, ok := s[k].(map[string]any); ok {
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				sub(m[n], at+"/"+k+"/"+n)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not", "contains", "propertyNames"} {
		sub(s[k], at+"/"+k)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"} {
		if list, ok := s[k].([]any); ok {
			for i, v := range list {
				sub(v, fmt.Sprintf("%s/%s/%d", at, k, i))
			}
		}
	}
}

// catalogSpecs is the real catalog as `whale-ls tools` lists it: every
// built-in tool, the shell tools included, and tool_search (a deferred MCP
// server is configured; it is never started).
// catalogDeps is a catalog's dependencies with a deferred MCP server
// configured, so that every tool is built.
func catalogDeps(t *testing.T) *testDeps {
	t.Helper()
	ws, err := workspace.NewSet([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	s, _, err := settings.Parse([]byte(`{"mcp":{"servers":{"later":{"command":"/nonexistent/whale-test-server","deferred":true}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := &testDeps{Workspace: ws, Reads: &ReadLedger{}, Terminals: terminal.NewTable(terminal.Options{}), language: &fakeLanguage{}}
	d.SetSettings(s)
	t.Cleanup(d.Close)
	return d
}

// catalogSpecs is the spec of every tool of the catalog, as a registry
// lists them.
func catalogSpecs(t *testing.T) []toolbridge.Spec {
	t.Helper()
	d := catalogDeps(t)
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(d.all()...); err != nil {
		t.Fatal(err)
	}
	specs := r.Specs()
	names := map[string]bool{}
	for _, spec := range specs {
		names[spec.Name] = true
	}
	for _, want := range []string{"read_file", "shell_run", "fetch", "todo_list", "tool_search"} {
		if !names[want] {
			t.Fatalf("the catalog lacks %s: %v", want, r.Names())
		}
	}
	return specs
}

// TestCatalogSchemasKeepEveryHostsRules: every tool of the catalog, as the
// fronts send it, keeps the rules above; a new tool that breaks one fails
// here.
func TestCatalogSchemasKeepEveryHostsRules(t *testing.T) {
	for _, spec := range catalogSpecs(t) {
		schema, err := json.Marshal(spec.InputSchema)
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		for _, p := range schemaRuleProblems(spec.Name, schema) {
			t.Errorf("%s: %s\nschema: %s", spec.Name, p, schema)
		}
		// The VS Code extension contributes each tool as whale_<name>.
		if n := len("whale_" + spec.Name); n > 64 {
			t.Errorf("%s: the VS Code tool name whale_%s has %d characters, more than 64", spec.Name, spec.Name, n)
		}
	}
}

// strictModeTools are the tools OpenAI's strict mode accepts as they are
// (README, "Tools"). A tool leaves the list only with a reason written
// here and in the README; the others have optional fields, which strict
// mode cannot express without changing what the tools accept.
var strictModeTools = []string{"apply_patch", "document_symbols", "load_skill", "shell_cancel", "symbols", "todo_list", "todo_remove", "write"}

func TestStrictModeTools(t *testing.T) {
	var got []string
	for _, spec := range catalogSpecs(t) {
		schema, err := json.Marshal(spec.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		problems := openAIStrictProblems(schema)
		if len(problems) == 0 {
			got = append(got, spec.Name)
		} else if slices.Contains(strictModeTools, spec.Name) {
			t.Errorf("%s is no longer usable in OpenAI strict mode: %s", spec.Name, strings.Join(problems, "; "))
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, strictModeTools) {
		t.Errorf("tools usable in OpenAI strict mode = %v, want %v (update strictModeTools and the README together)", got, strictModeTools)
	}
}

// TestSchemaRulesCatchBrokenSchemas: each rule finds what it is for, so
// that a clean catalog means something.
func TestSchemaRulesCatchBrokenSchemas(t *testing.T) {
	for _, tc := range []struct {
		name, tool, schema, want string
	}{
		{"fine", "ok", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, ""},
		{"no properties", "todo", `{"type":"object","additionalProperties":false}`, "openai: /: object schema without properties"},
		{"open map", "run", `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`, "gemini: /properties/env: an object without properties"},
		{"empty nested object", "run", `{"type":"object","properties":{"env":{"type":"object","properties":{}}}}`, "gemini: /properties/env"},
		{"array without items", "grep", `{"type":"object","properties":{"paths":{"type":"array"}}}`, "vscode, openai, gemini: /properties/paths: array schema without an items schema"},
		{"required not a property", "edit", `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`, "required names b"},
		{"bad type", "x", `{"type":"object","properties":{"a":{"type":"text"}}}`, "json-schema draft-07"},
		{"tuple items", "x", `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, "json-schema 2020-12"},
		{"unknown keyword", "x", `{"type":"object","properties":{"a":{"type":"string","nullable":true}}}`, `"nullable" is not a JSON Schema keyword`},
		{"not an object", "x", `{"type":"string"}`, `type is string, not "object"`},
		{"top-level anyOf", "x", `{"type":"object","properties":{},"anyOf":[{"required":["a"]}]}`, "anthropic, openai: anyOf at the top level"},
		{"enum on a number", "x", `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]}}}`, "gemini: /properties/n: enum"},
		{"long name", strings.Repeat("n", 65), `{"type":"object","properties":{}}`, "is not 1 to 64 letters"},
		{"dotted name", "a.b", `{"type":"object","properties":{}}`, "is not 1 to 64 letters"},
	} {
		problems := schemaRuleProblems(tc.tool, []byte(tc.schema))
		if tc.want == "" {
			if len(problems) > 0 {
				t.Errorf("%s: schemaRuleProblems(%s) = %q, want none", tc.name, tc.schema, problems)
			}
			continue
		}
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
			t.Errorf("%s: schemaRuleProblems(%s) = %q, want one mentioning %q", tc.name, tc.schema, problems, tc.want)
		}
	}
	for _, tc := range []struct {
		schema string
		strict bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{},"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, false},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":false}}},"required":["a"],"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"],"additionalProperties":false}`, false},
	} {
		if p := openAIStrictProblems([]byte(tc.schema)); (len(p) == 0) != tc.strict {
			t.Errorf("openAIStrictProblems(%s) = %q, want strict %v", tc.schema, p, tc.strict)
		}
	}
}

// TestSchemaJSON: an object schema always carries properties, a NameValues
// list is an array of closed {name, value} objects, and the markers for
// input repair stay off the wire.
func TestSchemaJSON(t *testing.T) {
	for _, tc := range []struct {
		schema *toolbridge.Schema
		want   string
	}{
		{toolbridge.Object(nil, nil), `{"type":"object","properties":{},"additionalProperties":false}`},
		{&toolbridge.Schema{Type: "object"}, `{"type":"object","properties":{}}`},
		{toolbridge.PathStr("p"), `{"type":"string","description":"p"}`},
		{toolbridge.NameValues("env", "n", "v"), `{"type":"array","description":"env","items":{"type":"object","properties":{"name":{"type":"string","description":"n"},"value":{"type":"string","description":"v"}},"required":["name","value"],"additionalProperties":false}}`},
	} {
		got, err := json.Marshal(tc.schema)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("json.Marshal(%+v) = %s, want %s", tc.schema, got, tc.want)
		}
	}
}

// decodeNumbers decodes one JSON value, keeping numbers as json.Number.
func decodeNumbers(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

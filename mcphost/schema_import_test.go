package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// TestMCPSchemaConversion: mcpSchema keeps every keyword, inlines only the
// references it can inline without changing the schema's meaning, and
// writes the result back as it came.
func TestMCPSchemaConversion(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", `{}`, `{"type":"object","properties":{}}`},
		{"not an object", `"x"`, `{"type":"object","properties":{}}`},
		{"boolean schemas", `{"type":"object","properties":{"a":true,"b":false}}`, `{"type":"object","properties":{"a":{},"b":{"not":{}}}}`},
		{"keywords kept as written", `{"type":"object","$schema":"http://json-schema.org/draft-07/schema#","properties":{"s":{"type":"string","pattern":"^a","minLength":1,"examples":["ab"],"title":"S","default":null},"n":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5,"maximum":10}},"additionalProperties":{"type":"string"}}`,
			`{"type":"object","$schema":"http://json-schema.org/draft-07/schema#","properties":{"s":{"type":"string","pattern":"^a","minLength":1,"examples":["ab"],"title":"S","default":null},"n":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5,"maximum":10}},"additionalProperties":{"type":"string"}}`},
		{"subset keywords of another form", `{"type":"object","properties":{"e":{"enum":[1,"a",null]},"r":{"type":"object","properties":{},"required":["x",null]},"t":{"type":"array","items":[{"type":"string"}]},"m":{"minimum":"1"}}}`,
			`{"type":"object","properties":{"e":{"enum":[1,"a",null]},"r":{"type":"object","properties":{},"required":["x",null]},"t":{"type":"array","items":[{"type":"string"}]},"m":{"minimum":"1"}}}`},
		{"tuple arrays get no items", `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}]}}}`, `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}]}}}`},
		{"nullable object gets properties", `{"type":"object","properties":{"o":{"type":["object","null"]},"a":{"type":["array","null"]}}}`,
			`{"type":"object","properties":{"o":{"type":["object","null"],"properties":{}},"a":{"type":["array","null"],"items":{}}}}`},
		{"ref beside a constraint is kept", `{"type":"object","$defs":{"d":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/d","maxLength":3}}}`,
			`{"type":"object","$defs":{"d":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/d","maxLength":3}}}`},
		{"ref with annotations is inlined", `{"type":"object","$defs":{"d":{"type":"string","description":"own"}},"properties":{"a":{"$ref":"#/$defs/d","description":"here","examples":["x"]}}}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"here","examples":["x"]}}}`},
		{"escaped and encoded names", `{"type":"object","$defs":{"a/b":{"type":"integer"},"c d":{"type":"boolean"}},"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c%20d"}}}`,
			`{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"boolean"}}}`},
		{"remote and unknown refs are kept", `{"type":"object","properties":{"r":{"$ref":"https://example.com/s.json"},"u":{"$ref":"#/$defs/missing"}}}`,
			`{"type":"object","properties":{"r":{"$ref":"https://example.com/s.json"},"u":{"$ref":"#/$defs/missing"}}}`},
		{"root reference is kept", `{"type":"object","properties":{"self":{"$ref":"#"}}}`, `{"type":"object","properties":{"self":{"$ref":"#"}}}`},
		{"a ref inside a kept keyword keeps the definitions", `{"type":"object","$defs":{"d":{"type":"string"}},"properties":{"a":{"type":"array","prefixItems":[{"$ref":"#/$defs/d"}]}}}`,
			`{"type":"object","$defs":{"d":{"type":"string"}},"properties":{"a":{"type":"array","prefixItems":[{"$ref":"#/$defs/d"}]}}}`},
		{"refs inside combinators", `{"type":"object","definitions":{"n":{"type":"integer"}},"properties":{"v":{"anyOf":[{"$ref":"#/definitions/n"},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}`},
	} {
		got, err := json.Marshal(ImportSchema(json.RawMessage(tc.in)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: ImportSchema(%s) wrote %s: %v", tc.name, tc.in, got, err)
		}
		if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s: ImportSchema(%s) = %s (-want +got):\n%s", tc.name, tc.in, got, diff)
		}
	}
}

// TestMCPSchemaInliningIsBounded: definitions that each use the next twice
// would double at every step; past the budget the references stay.
func TestMCPSchemaInliningIsBounded(t *testing.T) {
	var defs []string
	for i := range 30 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}}`, i, i+1, i+1))
	}
	defs = append(defs, `"d30":{"type":"string"}`)
	in := `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"x":{"$ref":"#/$defs/d0"}}}`
	s := ImportSchema(json.RawMessage(in))
	if n := countNodes(s); n > mcpInlineBudget*2 {
		t.Errorf("the schema grew to %d nodes, want at most about %d", n, mcpInlineBudget)
	}
	if !hasLocalRef(s, true) || s.Extra == nil || len(s.Extra.Defs) != 31 {
		t.Errorf("references past the budget were not kept with their definitions")
	}
}

// TestMCPSchemaSpecsAreFrozen: changing a listed spec's extra keywords
// does not change the registry's.
func TestMCPSchemaSpecsAreFrozen(t *testing.T) {
	tool := toolbridge.Tool{Spec: toolbridge.Spec{Name: "x", InputSchema: ImportSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":["string","null"],"anyOf":[{"const":1}]}}}`))},
		Run: func(context.Context, json.RawMessage) (toolbridge.Result, error) { return toolbridge.Result{}, nil }}
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(r.Specs()[0].InputSchema)
	s := r.Specs()[0].InputSchema
	s.Properties["a"].Extra.Types[0] = "integer"
	s.Properties["a"].Extra.AnyOf[0].Extra.Const[0] = '2'
	if after, _ := json.Marshal(r.Specs()[0].InputSchema); string(after) != string(before) {
		t.Errorf("spec changed from outside: %s, was %s", after, before)
	}
}

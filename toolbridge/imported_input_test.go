package toolbridge_test

import (
	"encoding/json"
	"testing"

	"github.com/whale-ls/whale-ls/mcphost"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// TestImportSchemaChecksAsTheServer: the converted schema keeps the
// keywords, and the check schema fails only what the server would fail.
func TestImportSchemaChecksAsTheServer(t *testing.T) {
	t.Parallel()
	s := mcphost.ImportSchema([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},"meta":{"type":"object"},"any":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["n"]}`))
	if s.Type != "object" || s.AdditionalProperties != nil || *s.Properties["n"].Minimum != 1 || s.Properties["tags"].Items.Enum[1] != "b" ||
		s.Properties["meta"].AdditionalProperties != nil || s.Properties["any"].Type != "" || len(s.Properties["any"].Extra.AnyOf) != 2 || s.Required[0] != "n" {
		t.Errorf("ImportSchema = %+v", s)
	}
	check := toolbridge.MCPCheckSchema(s)
	if problems := toolbridge.Validate(check, map[string]any{"n": json.Number("2"), "meta": map[string]any{"x": 1}, "any": nil, "extra": true}, ""); len(problems) > 0 {
		t.Errorf("validation stricter than the server's schema: %v", problems)
	}
	if problems := toolbridge.Validate(check, map[string]any{"n": json.Number("0"), "tags": []any{"c"}, "any": json.Number("1")}, ""); len(problems) != 3 {
		t.Errorf("validation = %v, want n below its minimum, c outside the enum and any not a string", problems)
	}
}

package mcphost

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// Proxied MCP tools' schemas. What a client sees is the server's schema,
// kept faithful: every keyword is listed as the server wrote it (the subset
// in Schema's fields, the rest in Schema.Extra), with three changes that
// leave its meaning as it was and that model providers need:
//   - a local $ref (#/$defs/NAME, #/definitions/NAME) is replaced by what it
//     points to, unless it is part of a cycle, stands beside keywords other
//     than annotations, or inlining would grow the schema past
//     mcpInlineBudget nodes; $defs and definitions stay while a $ref may
//     point into them;
//   - an array schema without items gets items: {} (VS Code);
//   - an object schema without properties gets properties: {} (OpenAI).
//
// What whale checks before it sends an input (toolbridge.ImportedInput) is
// the part of that schema which fails only inputs the server would fail
// too; the rest is the server's to enforce.

// mcpInlineBudget bounds the schema nodes that inlining $refs may add: a
// chain of definitions that each use the next twice would double at every
// step.
const mcpInlineBudget = 5000

// ImportSchema converts an MCP server's input schema for the catalog. The
// top level is always an object schema with properties.
func ImportSchema(raw json.RawMessage) *toolbridge.Schema {
	s := parseSchema(raw)
	if s == nil {
		s = &toolbridge.Schema{}
	}
	r := &refInliner{root: s, budget: mcpInlineBudget}
	s = r.inline(s, nil)
	if !hasLocalRef(s, true) && s.Extra != nil {
		s.Extra.Defs, s.Extra.Definitions = nil, nil
	}
	normalizeSchema(s)
	s.Type = "object"
	if s.Extra != nil {
		s.Extra.Types = nil
	}
	if s.Properties == nil {
		s.Properties = map[string]*toolbridge.Schema{}
	}
	return s
}

// parseSchema reads a JSON Schema: the subset into Schema's fields, every
// other keyword (or a subset keyword of another form, such as an enum with
// numbers) into Extra. true is {}; false is {"not": {}}; anything else that
// is not an object is nil.
func parseSchema(raw json.RawMessage) *toolbridge.Schema {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "true":
		return &toolbridge.Schema{}
	case "false":
		return &toolbridge.Schema{Extra: &toolbridge.SchemaExtra{Not: &toolbridge.Schema{}}}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil
	}
	s := &toolbridge.Schema{}
	x := &toolbridge.SchemaExtra{}
	other := func(k string, v json.RawMessage) {
		if x.Other == nil {
			x.Other = map[string]json.RawMessage{}
		}
		x.Other[k] = v
	}
	for k, v := range m {
		ok := true
		switch k {
		case "type":
			if s.Type, ok = jsonString(v); !ok {
				x.Types, ok = jsonStrings(v)
				ok = ok && len(x.Types) > 0
			}
		case "description":
			s.Description, ok = jsonString(v)
		case "title":
			x.Title, ok = jsonString(v)
		case "format":
			x.Format, ok = jsonString(v)
		case "$ref":
			x.Ref, ok = jsonString(v)
		case "required":
			s.Required, ok = jsonStrings(v)
		case "properties":
			s.Properties, ok = parseSchemaMap(v)
		case "$defs":
			x.Defs, ok = parseSchemaMap(v)
		case "definitions":
			x.Definitions, ok = parseSchemaMap(v)
		case "patternProperties":
			x.PatternProperties, ok = parseSchemaMap(v)
		case "items":
			s.Items = parseSchema(v)
			ok = s.Items != nil
		case "not":
			x.Not = parseSchema(v)
			ok = x.Not != nil
		case "anyOf":
			x.AnyOf, ok = parseSchemaList(v)
		case "oneOf":
			x.OneOf, ok = parseSchemaList(v)
		case "allOf":
			x.AllOf, ok = parseSchemaList(v)
		case "additionalProperties":
			if b := string(bytes.TrimSpace(v)); b == "true" || b == "false" {
				allow := b == "true"
				s.AdditionalProperties = &allow
			} else {
				x.AdditionalProperties = parseSchema(v)
				ok = x.AdditionalProperties != nil
			}
		case "enum":
			if s.Enum, ok = jsonStrings(v); !ok {
				ok = json.Unmarshal(v, &x.Enum) == nil && x.Enum != nil
			}
		case "minimum":
			s.Minimum, ok = parseNumber(v)
		case "maximum":
			s.Maximum, ok = parseNumber(v)
		case "const":
			x.Const = v
		case "default":
			x.Default = v
		default:
			ok = false
		}
		if !ok {
			other(k, v)
		}
	}
	if x.Types != nil || x.Enum != nil || x.Const != nil || x.Default != nil || x.Format != "" || x.Title != "" ||
		x.AnyOf != nil || x.OneOf != nil || x.AllOf != nil || x.Not != nil || x.Ref != "" || x.Defs != nil ||
		x.Definitions != nil || x.AdditionalProperties != nil || x.PatternProperties != nil || x.Other != nil {
		s.Extra = x
	}
	return s
}

func parseSchemaMap(raw json.RawMessage) (map[string]*toolbridge.Schema, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	out := make(map[string]*toolbridge.Schema, len(m))
	for k, v := range m {
		if out[k] = parseSchema(v); out[k] == nil {
			return nil, false
		}
	}
	return out, true
}

func parseSchemaList(raw json.RawMessage) ([]*toolbridge.Schema, bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return nil, false
	}
	out := make([]*toolbridge.Schema, len(list))
	for i, v := range list {
		if out[i] = parseSchema(v); out[i] == nil {
			return nil, false
		}
	}
	return out, true
}

func parseNumber(raw json.RawMessage) (*float64, bool) {
	var n json.Number
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') || json.Unmarshal(raw, &n) != nil {
		return nil, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	return &f, true
}

// jsonString decodes raw when it is a JSON string (not null).
func jsonString(raw json.RawMessage) (string, bool) {
	var str string
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &str) != nil {
		return "", false
	}
	return str, true
}

// jsonStrings decodes raw when it is a list of JSON strings (no nulls).
func jsonStrings(raw json.RawMessage) ([]string, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false
	}
	out := make([]string, len(items))
	for i, item := range items {
		str, ok := jsonString(item)
		if !ok {
			return nil, false
		}
		out[i] = str
	}
	return out, true
}

// children calls fn with a pointer to every direct subschema of s.
func children(s *toolbridge.Schema, fn func(**toolbridge.Schema)) {
	for k := range s.Properties {
		c := s.Properties[k]
		fn(&c)
		s.Properties[k] = c
	}
	if s.Items != nil {
		fn(&s.Items)
	}
	x := s.Extra
	if x == nil {
		return
	}
	for _, list := range [][]*toolbridge.Schema{x.AnyOf, x.OneOf, x.AllOf} {
		for i := range list {
			fn(&list[i])
		}
	}
	if x.Not != nil {
		fn(&x.Not)
	}
	if x.AdditionalProperties != nil {
		fn(&x.AdditionalProperties)
	}
	for _, m := range []map[string]*toolbridge.Schema{x.PatternProperties, x.Defs, x.Definitions} {
		for k := range m {
			c := m[k]
			fn(&c)
			m[k] = c
		}
	}
}

// refInliner replaces local $refs by copies of what they point to.
type refInliner struct {
	root   *toolbridge.Schema
	budget int // schema nodes inlining may still add
}

// inline returns s with its local $refs replaced where that is safe;
// stack holds the references being inlined, to stop at cycles.
func (r *refInliner) inline(s *toolbridge.Schema, stack []string) *toolbridge.Schema {
	if s == nil {
		return nil
	}
	if s.Extra != nil && s.Extra.Ref != "" {
		ref := s.Extra.Ref
		if target := r.target(ref); target != nil && !slices.Contains(stack, ref) && onlyAnnotationsBeside(s) {
			if n := countNodes(target); n <= r.budget {
				r.budget -= n
				c := r.inline(target.Clone(), append(stack, ref))
				overlayAnnotations(c, s)
				return c
			}
		}
	}
	children(s, func(c **toolbridge.Schema) {
		if *c == nil || s.Extra != nil && isDefinition(s, *c) {
			return // definitions are inlined where they are used, not in place
		}
		*c = r.inline(*c, stack)
	})
	return s
}

// isDefinition reports whether c is one of s's $defs or definitions.
func isDefinition(s, c *toolbridge.Schema) bool {
	for _, m := range []map[string]*toolbridge.Schema{s.Extra.Defs, s.Extra.Definitions} {
		for _, d := range m {
			if d == c {
				return true
			}
		}
	}
	return false
}

// target finds what a local reference (#/$defs/NAME or
// #/definitions/NAME) points to in the root schema, or nil.
func (r *refInliner) target(ref string) *toolbridge.Schema {
	if r.root.Extra == nil {
		return nil
	}
	frag, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	section, name, ok := strings.Cut(frag, "/")
	if !ok || strings.Contains(name, "/") {
		return nil
	}
	name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
	switch section {
	case "$defs":
		return r.root.Extra.Defs[name]
	case "definitions":
		return r.root.Extra.Definitions[name]
	}
	return nil
}

// annotationKeywords may stand beside a $ref that is inlined: they describe
// the value and do not constrain it.
var annotationKeywords = []string{"examples", "deprecated", "readOnly", "writeOnly", "$comment"}

// onlyAnnotationsBeside reports whether every keyword beside s's $ref is an
// annotation, so that inlining the reference keeps the schema's meaning.
func onlyAnnotationsBeside(s *toolbridge.Schema) bool {
	x := s.Extra
	bare := toolbridge.Schema{Description: s.Description, Extra: &toolbridge.SchemaExtra{Ref: x.Ref, Title: x.Title, Default: x.Default}}
	for k, v := range x.Other {
		if !slices.Contains(annotationKeywords, k) {
			return false
		}
		if bare.Extra.Other == nil {
			bare.Extra.Other = map[string]json.RawMessage{}
		}
		bare.Extra.Other[k] = v
	}
	a, _ := json.Marshal(s)
	b, _ := json.Marshal(bare)
	return bytes.Equal(a, b)
}

// overlayAnnotations gives c the annotations written beside the $ref that
// c replaces: those win over the definition's own.
func overlayAnnotations(c, ref *toolbridge.Schema) {
	x := ref.Extra
	if ref.Description != "" {
		c.Description = ref.Description
	}
	if x.Title == "" && x.Default == nil && len(x.Other) == 0 {
		return
	}
	if c.Extra == nil {
		c.Extra = &toolbridge.SchemaExtra{}
	}
	if x.Title != "" {
		c.Extra.Title = x.Title
	}
	if x.Default != nil {
		c.Extra.Default = x.Default
	}
	for k, v := range x.Other {
		if c.Extra.Other == nil {
			c.Extra.Other = map[string]json.RawMessage{}
		}
		c.Extra.Other[k] = v
	}
}

// countNodes counts the schemas in s, itself included.
func countNodes(s *toolbridge.Schema) int {
	n := 1
	children(s, func(c **toolbridge.Schema) {
		if *c != nil {
			n += countNodes(*c)
		}
	})
	return n
}

// hasLocalRef reports whether a $ref that may point into the root's
// definitions is left anywhere in s, also inside keywords kept as written
// (Extra.Other). skipDefs leaves out s's own definitions.
func hasLocalRef(s *toolbridge.Schema, skipDefs bool) bool {
	if s == nil {
		return false
	}
	if x := s.Extra; x != nil {
		if strings.HasPrefix(x.Ref, "#") {
			return true
		}
		for _, v := range x.Other {
			if bytes.Contains(v, []byte(`"$ref"`)) {
				return true
			}
		}
	}
	found := false
	children(s, func(c **toolbridge.Schema) {
		if found || *c == nil || skipDefs && s.Extra != nil && isDefinition(s, *c) {
			return
		}
		found = hasLocalRef(*c, false)
	})
	return found
}

// normalizeSchema gives every array schema items and every object schema
// properties, as model providers need; neither changes what is valid.
func normalizeSchema(s *toolbridge.Schema) {
	if s == nil {
		return
	}
	if hasType(s, "array") && s.Items == nil && !s.HasOther("items", "prefixItems") {
		s.Items = &toolbridge.Schema{}
	}
	if hasType(s, "object") && s.Properties == nil && !s.HasOther("properties") {
		s.Properties = map[string]*toolbridge.Schema{}
	}
	children(s, func(c **toolbridge.Schema) { normalizeSchema(*c) })
}

// hasType reports whether s's type is t or a list holding t.
func hasType(s *toolbridge.Schema, t string) bool {
	return s.Type == t || s.Extra != nil && slices.Contains(s.Extra.Types, t)
}

package toolbridge

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strings"
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
// What whale checks before it sends an input (mcpCheckSchema) is the part
// of that schema which fails only inputs the server would fail too; the
// rest is the server's to enforce.

// mcpInlineBudget bounds the schema nodes that inlining $refs may add: a
// chain of definitions that each use the next twice would double at every
// step.
const mcpInlineBudget = 5000

// ImportSchema converts an MCP server's input schema for the catalog. The
// top level is always an object schema with properties.
func ImportSchema(raw json.RawMessage) *Schema {
	s := parseSchema(raw)
	if s == nil {
		s = &Schema{}
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
		s.Properties = map[string]*Schema{}
	}
	return s
}

// parseSchema reads a JSON Schema: the subset into Schema's fields, every
// other keyword (or a subset keyword of another form, such as an enum with
// numbers) into Extra. true is {}; false is {"not": {}}; anything else that
// is not an object is nil.
func parseSchema(raw json.RawMessage) *Schema {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "true":
		return &Schema{}
	case "false":
		return &Schema{Extra: &SchemaExtra{Not: &Schema{}}}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil
	}
	s := &Schema{}
	x := &SchemaExtra{}
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

func parseSchemaMap(raw json.RawMessage) (map[string]*Schema, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	out := make(map[string]*Schema, len(m))
	for k, v := range m {
		if out[k] = parseSchema(v); out[k] == nil {
			return nil, false
		}
	}
	return out, true
}

func parseSchemaList(raw json.RawMessage) ([]*Schema, bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return nil, false
	}
	out := make([]*Schema, len(list))
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
func (s *Schema) children(fn func(**Schema)) {
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
	for _, list := range [][]*Schema{x.AnyOf, x.OneOf, x.AllOf} {
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
	for _, m := range []map[string]*Schema{x.PatternProperties, x.Defs, x.Definitions} {
		for k := range m {
			c := m[k]
			fn(&c)
			m[k] = c
		}
	}
}

// refInliner replaces local $refs by copies of what they point to.
type refInliner struct {
	root   *Schema
	budget int // schema nodes inlining may still add
}

// inline returns s with its local $refs replaced where that is safe;
// stack holds the references being inlined, to stop at cycles.
func (r *refInliner) inline(s *Schema, stack []string) *Schema {
	if s == nil {
		return nil
	}
	if s.Extra != nil && s.Extra.Ref != "" {
		ref := s.Extra.Ref
		if target := r.target(ref); target != nil && !slices.Contains(stack, ref) && onlyAnnotationsBeside(s) {
			if n := countNodes(target); n <= r.budget {
				r.budget -= n
				c := r.inline(target.clone(), append(stack, ref))
				overlayAnnotations(c, s)
				return c
			}
		}
	}
	s.children(func(c **Schema) {
		if *c == nil || s.Extra != nil && isDefinition(s, *c) {
			return // definitions are inlined where they are used, not in place
		}
		*c = r.inline(*c, stack)
	})
	return s
}

// isDefinition reports whether c is one of s's $defs or definitions.
func isDefinition(s, c *Schema) bool {
	for _, m := range []map[string]*Schema{s.Extra.Defs, s.Extra.Definitions} {
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
func (r *refInliner) target(ref string) *Schema {
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
func onlyAnnotationsBeside(s *Schema) bool {
	x := s.Extra
	bare := Schema{Description: s.Description, Extra: &SchemaExtra{Ref: x.Ref, Title: x.Title, Default: x.Default}}
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
func overlayAnnotations(c, ref *Schema) {
	x := ref.Extra
	if ref.Description != "" {
		c.Description = ref.Description
	}
	if x.Title == "" && x.Default == nil && len(x.Other) == 0 {
		return
	}
	if c.Extra == nil {
		c.Extra = &SchemaExtra{}
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
func countNodes(s *Schema) int {
	n := 1
	s.children(func(c **Schema) {
		if *c != nil {
			n += countNodes(*c)
		}
	})
	return n
}

// hasLocalRef reports whether a $ref that may point into the root's
// definitions is left anywhere in s, also inside keywords kept as written
// (Extra.Other). skipDefs leaves out s's own definitions.
func hasLocalRef(s *Schema, skipDefs bool) bool {
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
	s.children(func(c **Schema) {
		if found || *c == nil || skipDefs && s.Extra != nil && isDefinition(s, *c) {
			return
		}
		found = hasLocalRef(*c, false)
	})
	return found
}

// normalizeSchema gives every array schema items and every object schema
// properties, as model providers need; neither changes what is valid.
func normalizeSchema(s *Schema) {
	if s == nil {
		return
	}
	if s.hasType("array") && s.Items == nil && !s.hasOther("items", "prefixItems") {
		s.Items = &Schema{}
	}
	if s.hasType("object") && s.Properties == nil && !s.hasOther("properties") {
		s.Properties = map[string]*Schema{}
	}
	s.children(func(c **Schema) { normalizeSchema(*c) })
}

// hasType reports whether s's type is t or a list holding t.
func (s *Schema) hasType(t string) bool {
	return s.Type == t || s.Extra != nil && slices.Contains(s.Extra.Types, t)
}

// hasOther reports whether s keeps one of keys as written.
func (s *Schema) hasOther(keys ...string) bool {
	if s.Extra == nil {
		return false
	}
	for _, k := range keys {
		if _, ok := s.Extra.Other[k]; ok {
			return true
		}
	}
	return false
}

// mcpCheckSchema is what whale checks of a proxied tool's input before
// sending it, in the terms of validate and repairValue: the type of each
// value where the server's schema names exactly one, object fields (with
// extra fields allowed unless the server forbids them), required fields,
// items of arrays, string enums and numeric bounds. Anything else is left
// out, so that the check never refuses an input the server accepts. A
// field whose schema allows null besides one type (a type list such as
// ["integer", "null"], or anyOf that type and null) is checked as that
// type when it is not null, and a null there is never reported.
func mcpCheckSchema(s *Schema) *Schema {
	if s == nil {
		return nil
	}
	c := &Schema{Type: s.Type}
	if c.Type == "integer" {
		c.Type = "number" // validate's whole-number check stops at 2^53; JSON Schema's does not
	}
	switch s.Type {
	case "object":
		c.Properties = map[string]*Schema{}
		nullable := map[string]bool{}
		for k, p := range s.Properties {
			if inner, ok := nullableOf(p); ok {
				p = inner
				nullable[k] = true
			}
			c.Properties[k] = mcpCheckSchema(p)
			if c.Properties[k].Type == "" || c.Properties[k].Type == "null" {
				nullable[k] = true
			}
		}
		for _, k := range s.Required {
			if !nullable[k] {
				c.Required = append(c.Required, k)
			}
		}
		open := s.AdditionalProperties == nil || *s.AdditionalProperties ||
			s.Extra != nil && s.Extra.PatternProperties != nil || s.hasOther("patternProperties")
		c.AdditionalProperties = &open
	case "array":
		if !s.hasOther("items", "prefixItems") {
			c.Items = mcpCheckSchema(s.Items)
		}
	case "string":
		c.Enum = s.Enum
	case "integer", "number":
		c.Minimum, c.Maximum = s.Minimum, s.Maximum
	}
	return c
}

// nullableOf returns the schema of the one type s allows besides null:
// s with type [T, "null"] as type T, or the other branch of
// anyOf/oneOf [..., {"type": "null"}].
func nullableOf(s *Schema) (*Schema, bool) {
	if s == nil || s.Extra == nil {
		return nil, false
	}
	x := s.Extra
	if len(x.Types) == 2 && slices.Contains(x.Types, "null") && s.Type == "" {
		c := s.clone()
		c.Type = x.Types[0]
		if c.Type == "null" {
			c.Type = x.Types[1]
		}
		c.Extra.Types = nil
		return c, true
	}
	for _, list := range [][]*Schema{x.AnyOf, x.OneOf} {
		if len(list) != 2 || s.Type != "" || len(x.Types) > 0 {
			continue
		}
		for i, branch := range list {
			if b, _ := json.Marshal(branch); string(b) == `{"type":"null"}` {
				return list[1-i], true
			}
		}
	}
	return nil, false
}

// mcpRepair applies input repair to a proxied tool's input as repairValue
// does, guided by the check schema, except that it never touches a null:
// a null reaches the server as the model sent it.
func mcpRepair(s *Schema, v any, repairs *[]string) any {
	if s == nil || v == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if s.Type == "object" {
			for k, fv := range x {
				if p, ok := s.Properties[k]; ok && fv != nil {
					x[k] = mcpRepair(p, fv, repairs)
				}
			}
		}
		return x
	case []any:
		if s.Type == "array" {
			for i := range x {
				x[i] = mcpRepair(s.Items, x[i], repairs)
			}
		}
		return x
	}
	if s.Type == "array" {
		// A string where the array belongs: repairValue parses or wraps
		// it (with no items schema, so it leaves the items alone), and
		// its items are repaired here.
		v = repairValue(&Schema{Type: "array"}, v, repairs)
		if list, ok := v.([]any); ok {
			for i := range list {
				list[i] = mcpRepair(s.Items, list[i], repairs)
			}
		}
		return v
	}
	return repairValue(s, v, repairs)
}

// mcpInput prepares the input of one proxied tool (Tool.PrepareInput).
type mcpInput struct {
	spec  Spec    // the tool's spec as listed
	check *Schema // mcpCheckSchema of its input schema
	// shown lists the fields in invalid_input texts (fieldList), with
	// their types as the server names them.
	shown *Schema
}

// ImportedInput is the Tool.PrepareInput of a tool whose schema came from
// ImportSchema: it repairs and checks no more than the server itself would,
// and sends input that passes unrepaired byte for byte.
func ImportedInput(spec Spec) func(json.RawMessage) (json.RawMessage, []string, *Failure) {
	return newMCPInput(spec).prepare
}

func newMCPInput(spec Spec) mcpInput {
	shown := &Schema{Type: "object", Properties: map[string]*Schema{}, Required: spec.InputSchema.Required}
	for k, p := range spec.InputSchema.Properties {
		shown.Properties[k] = &Schema{Type: typeLabel(p), Enum: p.Enum}
		if p.Type == "array" && p.Items != nil {
			shown.Properties[k].Items = &Schema{Type: typeLabel(p.Items)}
		}
	}
	return mcpInput{spec: spec, check: mcpCheckSchema(spec.InputSchema), shown: shown}
}

// typeLabel names the type a schema allows, for a reader: "integer",
// "string or null", or "see the schema" where it takes more words.
func typeLabel(s *Schema) string {
	switch {
	case s.Type != "":
		return s.Type
	case s.Extra != nil && len(s.Extra.Types) > 0:
		return strings.Join(s.Extra.Types, " or ")
	}
	if inner, ok := nullableOf(s); ok && inner.Type != "" {
		return inner.Type + " or null"
	}
	if s.Extra == nil {
		return "any value"
	}
	return "see the input schema"
}

// prepare works as prepareInput does, with the check schema and mcpRepair:
// input that passes the check unrepaired is sent byte for byte.
func (p mcpInput) prepare(raw json.RawMessage) (json.RawMessage, []string, *Failure) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	shown := p.spec
	shown.InputSchema = p.shown
	v, err := decodeJSON(raw)
	obj, isObject := v.(map[string]any)
	if err != nil || !isObject {
		return prepareInput(shown, raw) // it reports what is wrong
	}
	_, own := p.spec.InputSchema.Properties[reservedDescriptionField]
	_, labelled := obj[reservedDescriptionField]
	labelled = labelled && !own // a label for the model's reader, not for the server
	if labelled {
		delete(obj, reservedDescriptionField)
	}
	var repairs []string
	mcpRepair(p.check, obj, &repairs)
	if problems := validate(p.check, obj, ""); len(problems) > 0 {
		if len(repairs) > 0 { // report the input as it was sent
			original, _ := decodeJSON(raw)
			orig := original.(map[string]any)
			if !own {
				delete(orig, reservedDescriptionField)
			}
			problems = validate(p.check, orig, "")
		}
		return nil, nil, invalidInput(shown, problems)
	}
	if len(repairs) == 0 && !labelled {
		return raw, nil, nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, invalidInput(shown, []string{err.Error()})
	}
	return out, dedupe(repairs), nil
}

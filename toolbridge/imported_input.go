package toolbridge

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// The input of proxied MCP tools, whose schemas mcphost.ImportSchema
// converts: what whale checks before it sends an input (mcpCheckSchema) is
// the part of the server's schema which fails only inputs the server would
// fail too; the rest is the server's to enforce.

// HasOther reports whether s keeps one of keys as written, among the
// keywords beyond whale's subset (SchemaExtra.Other).
func (s *Schema) HasOther(keys ...string) bool {
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
			s.Extra != nil && s.Extra.PatternProperties != nil || s.HasOther("patternProperties")
		c.AdditionalProperties = &open
	case "array":
		if !s.HasOther("items", "prefixItems") {
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
		c := s.Clone()
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
// mcphost.ImportSchema: it repairs and checks no more than the server
// itself would, and sends input that passes unrepaired byte for byte.
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

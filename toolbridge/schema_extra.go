package toolbridge

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
)

// SchemaExtra holds the JSON Schema keywords beyond whale's own subset.
// Only the schemas of proxied MCP tools carry it, so that a client sees such
// a schema as its server wrote it (mcphost.ImportSchema). Whale's own
// checks of an input read the subset alone; these keywords are the
// server's to enforce.
type SchemaExtra struct {
	// Types is the list form of "type", such as ["string", "null"] for a
	// nullable string. Schema.Type is empty when it is set.
	Types []string
	// Enum is an enum with values other than strings (Schema.Enum holds an
	// enum of strings only).
	Enum []json.RawMessage
	// Const and Default are JSON values as the server wrote them; a JSON
	// null is kept as "null".
	Const, Default json.RawMessage
	Format, Title  string
	AnyOf          []*Schema
	OneOf          []*Schema
	AllOf          []*Schema
	Not            *Schema
	// Ref is a $ref that was not replaced by what it points to: not local,
	// part of a cycle, or beside keywords other than annotations.
	Ref string
	// Defs and Definitions ($defs, and draft-07's definitions) are kept
	// while a Ref anywhere in the schema may point into them.
	Defs        map[string]*Schema
	Definitions map[string]*Schema
	// AdditionalProperties is the schema form of additionalProperties
	// (Schema.AdditionalProperties holds the boolean form).
	AdditionalProperties *Schema
	PatternProperties    map[string]*Schema
	// Other holds every other keyword as the server wrote it (pattern,
	// minLength, examples, prefixItems, the list form of items, …). It
	// never holds a keyword that a field above or of Schema holds.
	Other map[string]json.RawMessage
}

// marshalWithExtra writes s with its extra keywords: the list form of type
// first, then the subset as Schema.MarshalJSON writes it, then the rest.
func (s Schema) marshalWithExtra() ([]byte, error) {
	x := s.Extra
	base := s
	base.Extra = nil
	inner, err := base.MarshalJSON()
	if err != nil {
		return nil, err
	}
	inner = bytes.TrimSpace(inner)
	inner = bytes.TrimSpace(inner[1 : len(inner)-1]) // the members, without braces

	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	member := func(key string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(raw)
		return nil
	}
	if len(x.Types) > 0 && s.Type == "" {
		if err := member("type", x.Types); err != nil {
			return nil, err
		}
	}
	if len(inner) > 0 {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(inner)
	}
	type keyword struct {
		key string
		set bool
		v   any
	}
	for _, kw := range []keyword{
		{"enum", len(x.Enum) > 0 && len(s.Enum) == 0, x.Enum},
		{"const", x.Const != nil, x.Const},
		{"default", x.Default != nil, x.Default},
		{"format", x.Format != "", x.Format},
		{"title", x.Title != "", x.Title},
		{"anyOf", len(x.AnyOf) > 0, x.AnyOf},
		{"oneOf", len(x.OneOf) > 0, x.OneOf},
		{"allOf", len(x.AllOf) > 0, x.AllOf},
		{"not", x.Not != nil, x.Not},
		{"$ref", x.Ref != "", x.Ref},
		{"additionalProperties", x.AdditionalProperties != nil && s.AdditionalProperties == nil, x.AdditionalProperties},
		{"patternProperties", x.PatternProperties != nil, x.PatternProperties},
		{"$defs", x.Defs != nil, x.Defs},
		{"definitions", x.Definitions != nil, x.Definitions},
	} {
		if kw.set {
			if err := member(kw.key, kw.v); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(x.Other)) {
		if err := member(k, x.Other[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// clone deep-copies the extra keywords.
func (x *SchemaExtra) clone() *SchemaExtra {
	if x == nil {
		return nil
	}
	c := *x
	c.Types = slices.Clone(x.Types)
	c.Enum = cloneRaws(x.Enum)
	c.Const = bytes.Clone(x.Const)
	c.Default = bytes.Clone(x.Default)
	c.AnyOf = cloneSchemas(x.AnyOf)
	c.OneOf = cloneSchemas(x.OneOf)
	c.AllOf = cloneSchemas(x.AllOf)
	c.Not = x.Not.Clone()
	c.Defs = cloneSchemaMap(x.Defs)
	c.Definitions = cloneSchemaMap(x.Definitions)
	c.AdditionalProperties = x.AdditionalProperties.Clone()
	c.PatternProperties = cloneSchemaMap(x.PatternProperties)
	if x.Other != nil {
		c.Other = make(map[string]json.RawMessage, len(x.Other))
		for k, v := range x.Other {
			c.Other[k] = bytes.Clone(v)
		}
	}
	return &c
}

func cloneRaws(list []json.RawMessage) []json.RawMessage {
	if list == nil {
		return nil
	}
	out := make([]json.RawMessage, len(list))
	for i, v := range list {
		out[i] = bytes.Clone(v)
	}
	return out
}

func cloneSchemas(list []*Schema) []*Schema {
	if list == nil {
		return nil
	}
	out := make([]*Schema, len(list))
	for i, s := range list {
		out[i] = s.Clone()
	}
	return out
}

func cloneSchemaMap(m map[string]*Schema) map[string]*Schema {
	if m == nil {
		return nil
	}
	out := make(map[string]*Schema, len(m))
	for k, s := range m {
		out[k] = s.Clone()
	}
	return out
}

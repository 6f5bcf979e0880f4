package catalog

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// TestSchemasMatchInputStructs: each tool's schema lists exactly the JSON
// fields of the struct its input decodes into, with the same types, and
// requires only fields the struct has. A schema property missing from the
// struct would be accepted and then silently dropped; a struct field
// missing from the schema could never be set.
func TestSchemasMatchInputStructs(t *testing.T) {
	t.Parallel()
	for _, tool := range catalogDeps(t).all() {
		if tool.Input == nil {
			continue // no Go type: tool_search and proxied MCP tools
		}
		for _, p := range schemaStructProblems(tool.Spec.InputSchema, tool.Input, "") {
			t.Errorf("%s: %s", tool.Spec.Name, p)
		}
	}
}

// TestSchemaStructProblemsFindsMismatches: the check itself reports a
// property the struct lacks, a field the schema lacks, a wrong type and a
// required name that is no field.
func TestSchemaStructProblemsFindsMismatches(t *testing.T) {
	t.Parallel()
	type in struct {
		A string `json:"a"`
		B int    `json:"b,omitempty"`
		C []bool `json:"c"`
		D string `json:"-"`
	}
	schema := toolbridge.Object([]string{"a", "x"}, map[string]*toolbridge.Schema{
		"a": toolbridge.Str(""),
		"b": toolbridge.Str(""),
		"x": toolbridge.Str(""),
	})
	got := schemaStructProblems(schema, reflect.TypeFor[in](), "")
	slices.Sort(got)
	want := []string{
		"b: the schema says string, the struct field is integer",
		"c: a field of the struct that the schema does not list",
		"x: in the schema but not a field of the struct",
		"x: required but not a field of the struct",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems = %q, want %q", got, want)
	}
}

// schemaStructProblems compares schema s with the JSON encoding of type
// typ, recursing into objects and array items.
func schemaStructProblems(s *toolbridge.Schema, typ reflect.Type, path string) []string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if s == nil {
		return nil
	}
	want := jsonTypeOf(typ)
	if want == "" {
		return nil // json.RawMessage, any: the schema decides
	}
	var problems []string
	name := strings.TrimPrefix(path, ".")
	if s.Type != want && !(s.Type == "number" && want == "integer") {
		return []string{name + ": the schema says " + s.Type + ", the struct field is " + want}
	}
	switch want {
	case "array":
		problems = append(problems, schemaStructProblems(s.Items, typ.Elem(), path+"[]")...)
	case "object":
		if typ.Kind() == reflect.Map {
			return nil
		}
		fields := jsonFields(typ)
		for _, k := range sortedKeys(s.Properties) {
			f, ok := fields[k]
			if !ok {
				problems = append(problems, strings.TrimPrefix(path+"."+k, ".")+": in the schema but not a field of the struct")
				continue
			}
			problems = append(problems, schemaStructProblems(s.Properties[k], f, path+"."+k)...)
		}
		for _, k := range sortedKeys(fields) {
			if _, ok := s.Properties[k]; !ok {
				problems = append(problems, strings.TrimPrefix(path+"."+k, ".")+": a field of the struct that the schema does not list")
			}
		}
		for _, k := range s.Required {
			if _, ok := fields[k]; !ok {
				problems = append(problems, strings.TrimPrefix(path+"."+k, ".")+": required but not a field of the struct")
			}
		}
	}
	return problems
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonTypeOf is the JSON Schema type encoding/json gives t, or "" when any
// value decodes into it.
func jsonTypeOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return ""
}

// jsonFields are the fields encoding/json decodes into a struct, by their
// JSON names, with the fields of embedded structs promoted.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, own := fields[k]; !own {
						fields[k] = v
					}
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}

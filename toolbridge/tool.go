package toolbridge

import (
	"context"
	"encoding/json"
	"reflect"
)

// Groups name the parts of the catalog; editors use them to sort and filter.
const (
	GroupFiles  = "files"
	GroupSearch = "search"
	GroupWeb    = "web"
	GroupInput  = "input"
	GroupEdit   = "edit"
	GroupShell  = "shell"
	GroupPlan   = "plan"
	GroupTodo   = "todo"
	GroupMCP    = "mcp"
)

// Spec is what a client sees of a tool. It is frozen when the tool is
// registered and never changes within a session.
type Spec struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	InputSchema *Schema `json:"inputSchema"`
	ReadOnly    bool    `json:"readOnly"`
	Group       string  `json:"group"`
	// Title is a name for people; only proxied MCP tools have one.
	Title string `json:"title,omitempty"`
	// Hints are an MCP tool's annotations beyond ReadOnly, as its server
	// gave them; nil for whale's own tools.
	Hints *Hints `json:"hints,omitempty"`
}

// Hints are MCP's tool annotations destructiveHint, idempotentHint and
// openWorldHint. A nil pointer is a hint not given, which MCP reads as
// true.
type Hints struct {
	Destructive *bool `json:"destructive,omitempty"`
	Idempotent  bool  `json:"idempotent,omitempty"`
	OpenWorld   *bool `json:"openWorld,omitempty"`
}

// Schema is the subset of JSON Schema that tool inputs use. Path marks string
// fields that hold a file path, so that input repair can unwrap Markdown links
// there; NameValues marks a NameValues list, which input repair also accepts
// as a JSON object. Neither is sent over the wire.
//
// Every schema of the catalog keeps to the rules of every host that offers
// it to a model (schemarules_test.go): JSON Schema draft-07 and 2020-12,
// OpenAI function calling, Anthropic input_schema, Gemini function
// declarations as its SDKs convert them, and VS Code. In short: every object
// has properties, every array has items, no open maps.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
	Path                 bool               `json:"-"`
	NameValues           bool               `json:"-"`
	// Extra holds the JSON Schema keywords outside the subset above; only
	// proxied MCP tools' schemas have them (schema_extra.go).
	Extra *SchemaExtra `json:"-"`
}

// schemaJSON is Schema as it is sent; a non-nil Properties pointer is
// written even when the map is empty.
type schemaJSON struct {
	Type                 string              `json:"type,omitempty"`
	Description          string              `json:"description,omitempty"`
	Properties           *map[string]*Schema `json:"properties,omitempty"`
	Required             []string            `json:"required,omitempty"`
	Items                *Schema             `json:"items,omitempty"`
	Enum                 []string            `json:"enum,omitempty"`
	Minimum              *float64            `json:"minimum,omitempty"`
	Maximum              *float64            `json:"maximum,omitempty"`
	AdditionalProperties *bool               `json:"additionalProperties,omitempty"`
}

// MarshalJSON writes the schema as JSON Schema. An object schema always
// carries properties, {} when it has none: OpenAI refuses an object schema
// without them ("object schema missing properties").
func (s Schema) MarshalJSON() ([]byte, error) {
	if s.Extra != nil {
		return s.marshalWithExtra()
	}
	w := schemaJSON{
		Type:                 s.Type,
		Description:          s.Description,
		Required:             s.Required,
		Items:                s.Items,
		Enum:                 s.Enum,
		Minimum:              s.Minimum,
		Maximum:              s.Maximum,
		AdditionalProperties: s.AdditionalProperties,
	}
	if props := s.Properties; props != nil || s.Type == "object" {
		if props == nil {
			props = map[string]*Schema{}
		}
		w.Properties = &props
	}
	return json.Marshal(w)
}

// Tool is one entry of the catalog: its frozen Spec and the function that runs
// it on input that has already been repaired and validated.
type Tool struct {
	Spec Spec
	Run  func(ctx context.Context, input json.RawMessage) (Result, error)
	// FindDeferred, when set, finds a tool that this one keeps out of the
	// catalog until it is needed (tool_search: the deferred MCP servers'
	// tools) by its exact name. Dispatch asks it about names it does not
	// know, adds what it returns as Add does, and runs it. ok is false for
	// a name it does not own; an error (a *Failure, for the model) ends the
	// call. It must return a tool named name (or with name among its
	// Aliases), and the same spec every time. Only tools given to
	// NewRegistry are asked.
	FindDeferred func(ctx context.Context, name string) (tool Tool, ok bool, err error)
	// Aliases are further names a call may use (a proxied MCP tool's full
	// name when its catalog name had to be shortened). They are never
	// listed, and a tool's own name always wins over another tool's alias.
	Aliases []string
	// PrepareInput, when set, replaces the registry's repair and validation
	// of this tool's input: it returns the input to run on, the repairs
	// made (by their Repair* names), or a *Failure that the model reads.
	// Proxied MCP tools set it so that what their server is sent stays as
	// the model sent it wherever whale cannot know better (null values,
	// keywords outside whale's own checks).
	PrepareInput func(input json.RawMessage) (json.RawMessage, []string, *Failure)
	// Input is the Go type the input decodes into, set by Define, so that a
	// test can check the schema's properties against its JSON fields. It is
	// nil for tools whose input has no Go type (proxied MCP tools).
	Input reflect.Type
}

// Define builds a Tool whose input decodes into In. The run function returns a
// Result, a *Failure for problems the model can fix, or any other error for
// faults (reported as code internal).
func Define[In any](spec Spec, run func(ctx context.Context, in In) (Result, error)) Tool {
	return Tool{
		Spec:  spec,
		Input: reflect.TypeFor[In](),
		Run: func(ctx context.Context, raw json.RawMessage) (Result, error) {
			var in In
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &in); err != nil {
					return Result{}, Fail(CodeInvalidInput, "input does not match the schema of %s: %v; check the field types against the tool description", spec.Name, err)
				}
			}
			return run(ctx, in)
		},
	}
}

// Object is shorthand for an object schema that allows no other fields.
func Object(required []string, props map[string]*Schema) *Schema {
	f := false
	return &Schema{Type: "object", Properties: props, Required: required, AdditionalProperties: &f}
}

// Str, Int, Bool, Arr and Enum are shorthands for property schemas.
func Str(desc string) *Schema { return &Schema{Type: "string", Description: desc} }

// PathStr is a string property that holds a file path.
func PathStr(desc string) *Schema { return &Schema{Type: "string", Description: desc, Path: true} }

// Int is an integer property with an optional lower bound.
func Int(desc string, min float64) *Schema {
	return &Schema{Type: "integer", Description: desc, Minimum: &min}
}

// Bool is a boolean property.
func Bool(desc string) *Schema { return &Schema{Type: "boolean", Description: desc} }

// Arr is an array property whose items follow items.
func Arr(desc string, items *Schema) *Schema {
	return &Schema{Type: "array", Description: desc, Items: items}
}

// NameValues is a list of {name, value} pairs of strings: the schema of a
// map from names to strings, such as environment variables or HTTP headers.
// It is a list and not an object with additionalProperties because Gemini's
// function declarations drop additionalProperties and then refuse an object
// without properties, and because OpenAI's strict mode forbids open maps.
// Input repair also accepts the object form {"NAME": "value"} (repair
// object_to_name_value_list), and numbers or booleans as names and values
// (number_or_boolean_to_string). Tools decode it as []NameValue.
func NameValues(desc, name, value string) *Schema {
	s := Arr(desc, Object([]string{"name", "value"}, map[string]*Schema{
		"name":  Str(name),
		"value": Str(value),
	}))
	s.NameValues = true
	return s
}

// NameValue is one entry of a NameValues list.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Enum is a string property limited to values.
func Enum(desc string, values ...string) *Schema {
	return &Schema{Type: "string", Description: desc, Enum: values}
}

// Bounded is an optional count from a tool's input: def when it is not
// given (zero or less), never more than max.
func Bounded(n, def, max int) int {
	if n <= 0 {
		n = def
	}
	return min(n, max)
}

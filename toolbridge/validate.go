package toolbridge

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// validate checks v against s and returns one sentence per problem: missing
// required fields, unknown fields, wrong types, values outside an enum or a
// range. path names the field being checked ("" for the whole input).
func validate(s *Schema, v any, path string) []string {
	if s == nil {
		return nil
	}
	name := path
	if name == "" {
		name = "input"
	}
	var problems []string
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s must be an object, got %s", name, describe(v))}
		}
		for _, r := range s.Required {
			if fv, ok := obj[r]; !ok || fv == nil {
				problems = append(problems, fmt.Sprintf("%s is required", join(path, r)))
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, known := s.Properties[k]
			if !known {
				if s.AdditionalProperties == nil || !*s.AdditionalProperties {
					problems = append(problems, fmt.Sprintf("%s is not a field of this tool", join(path, textInput(k))))
				}
				continue
			}
			if obj[k] == nil {
				continue // reported as required above, or an omitted optional
			}
			problems = append(problems, validate(ps, obj[k], join(path, k))...)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s must be an array, got %s", name, describe(v))}
		}
		for i, item := range arr {
			problems = append(problems, validate(s.Items, item, fmt.Sprintf("%s[%d]", name, i))...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s must be a string, got %s", name, describe(v))}
		}
		if len(s.Enum) > 0 && !contains(s.Enum, str) {
			problems = append(problems, fmt.Sprintf("%s must be one of %s, got %s", name, strings.Join(s.Enum, ", "), quoteInput(str)))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s must be true or false, got %s", name, describe(v))}
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return []string{fmt.Sprintf("%s must be a number, got %s", name, describe(v))}
		}
		f, err := n.Float64()
		if err != nil {
			return []string{fmt.Sprintf("%s is not a usable number: %s", name, textInput(n.String()))}
		}
		if s.Type == "integer" && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
			return []string{fmt.Sprintf("%s must be a whole number, got %s", name, textInput(n.String()))}
		}
		if s.Minimum != nil && f < *s.Minimum {
			problems = append(problems, fmt.Sprintf("%s must be at least %v, got %s", name, *s.Minimum, textInput(n.String())))
		}
		if s.Maximum != nil && f > *s.Maximum {
			problems = append(problems, fmt.Sprintf("%s must be at most %v, got %s", name, *s.Maximum, textInput(n.String())))
		}
	}
	return problems
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// describe names the JSON type of v, with an excerpt of strings.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case json.Number:
		return "number " + textInput(x.String())
	case string:
		return "string " + quoteInput(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// invalidInput builds the invalid_input failure: what is wrong, hints for
// known confusions, then the tool's valid fields with their types.
func invalidInput(spec Spec, problems []string) *Failure {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid input for %s: ", spec.Name)
	if len(problems) > 6 {
		problems = append(problems[:6], fmt.Sprintf("and %d more problems", len(problems)-6))
	}
	b.WriteString(strings.Join(problems, "; "))
	b.WriteString(".")
	for _, h := range hintsFor(spec, problems) {
		b.WriteString(" ")
		b.WriteString(h)
	}
	b.WriteString(" Valid fields: ")
	b.WriteString(fieldList(spec.InputSchema))
	b.WriteString(". Fix the input and call the tool again.")
	return &Failure{Code: CodeInvalidInput, Text: b.String()}
}

// fieldList renders "name (type, required), ..." in schema order: required
// fields first, then the rest alphabetically.
func fieldList(s *Schema) string {
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		p := s.Properties[n]
		t := p.Type
		if p.Type == "array" && p.Items != nil {
			t = "array of " + p.Items.Type
		}
		if len(p.Enum) > 0 {
			t = strings.Join(p.Enum, "|")
		}
		if req[n] {
			t += ", required"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", n, t))
	}
	return strings.Join(parts, ", ")
}

// TooLong refuses a free-text field of more than max bytes, or returns nil.
// Tools that keep such text (todos, plans) repeat it in every later result,
// so one huge value would flood them all.
func TooLong(field, s string, max int, advice string) error {
	if len(s) <= max {
		return nil
	}
	return Fail(CodeInvalidInput, "%s is %d bytes; it may hold up to %d — %s", field, len(s), max, advice)
}

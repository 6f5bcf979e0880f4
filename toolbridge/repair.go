package toolbridge

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Repair kinds, reported by their exact names in an Envelope's repairs.
// Each name says what was repaired.
const (
	RepairStringifiedArray    = "stringified_array"
	RepairBareStringToArray   = "bare_string_to_array"
	RepairNullOptionalOmitted = "null_optional_omitted"
	// RepairSemanticBooleanString: "true" or "false" in a boolean field.
	RepairSemanticBooleanString = "semantic_boolean_string"
	// RepairNumericString: a number sent as a string ("5") in an integer
	// or number field.
	RepairNumericString        = "numeric_string"
	RepairMarkdownAutolinkPath = "markdown_autolink_path"
	// RepairObjectToNameValueList: a JSON object {"NAME": "value"} where
	// the schema has a NameValues list [{"name": "NAME", "value": "value"}].
	RepairObjectToNameValueList = "object_to_name_value_list"
	// RepairNumberOrBooleanToString: a number or boolean as a name or value
	// of a NameValues list (env {"PORT": 8080}); its JSON text is used.
	RepairNumberOrBooleanToString = "number_or_boolean_to_string"
)

// prepareInput turns raw call input into the input a tool runs on: parsed,
// repaired where the schema shows what was meant, and validated. Repairs are
// kept only when the repaired input is valid; otherwise the original input's
// validation error is returned and nothing is changed.
func prepareInput(spec Spec, raw json.RawMessage) (json.RawMessage, []string, *Failure) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, nil, invalidInput(spec, []string{"input is not valid JSON: " + err.Error()})
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, invalidInput(spec, []string{"input must be a JSON object of named fields"})
	}
	_, labelled := obj[reservedDescriptionField]
	if labelled {
		if _, own := spec.InputSchema.Properties[reservedDescriptionField]; !own {
			delete(obj, reservedDescriptionField)
		}
	}
	var repairs []string
	repairValue(spec.InputSchema, obj, &repairs) // repairs obj in place
	if problems := validate(spec.InputSchema, obj, ""); len(problems) > 0 {
		if len(repairs) == 0 {
			return nil, nil, invalidInput(spec, problems)
		}
		// Report the problems of the input as it was sent, not as repaired.
		original, _ := decodeJSON(raw)
		orig := original.(map[string]any)
		delete(orig, reservedDescriptionField)
		return nil, nil, invalidInput(spec, validate(spec.InputSchema, orig, ""))
	}
	if len(repairs) == 0 && !labelled {
		return raw, nil, nil // valid as sent: pass the bytes through
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, invalidInput(spec, []string{err.Error()})
	}
	return out, dedupe(repairs), nil
}

// reservedDescriptionField is accepted on every call and ignored: models
// attach human-readable labels to their calls under this name.
const reservedDescriptionField = "description"

func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

// repairValue applies the conservative, schema-guided repairs to v and
// returns the repaired value.
func repairValue(s *Schema, v any, repairs *[]string) any {
	if s == nil {
		return v
	}
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return v
		}
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		for k, fv := range obj {
			ps, known := s.Properties[k]
			if !known {
				continue
			}
			if fv == nil && !required[k] {
				delete(obj, k)
				*repairs = append(*repairs, RepairNullOptionalOmitted)
				continue
			}
			obj[k] = repairValue(ps, fv, repairs)
		}
		return obj
	case "array":
		if s.NameValues {
			v = repairNameValues(v, repairs)
		}
		switch x := v.(type) {
		case string:
			t := strings.TrimSpace(x)
			if strings.HasPrefix(t, "[") {
				if parsed, err := decodeJSON([]byte(t)); err == nil {
					if arr, ok := parsed.([]any); ok {
						*repairs = append(*repairs, RepairStringifiedArray)
						return repairValue(s, arr, repairs)
					}
				}
			}
			*repairs = append(*repairs, RepairBareStringToArray)
			return repairValue(s, []any{x}, repairs)
		case []any:
			for i := range x {
				x[i] = repairValue(s.Items, x[i], repairs)
			}
			return x
		}
	case "boolean":
		if x, ok := v.(string); ok {
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true":
				*repairs = append(*repairs, RepairSemanticBooleanString)
				return true
			case "false":
				*repairs = append(*repairs, RepairSemanticBooleanString)
				return false
			}
		}
	case "integer", "number":
		if x, ok := v.(string); ok {
			t := strings.TrimSpace(x)
			if _, err := strconv.ParseFloat(t, 64); err == nil && t != "" && !strings.ContainsAny(t, "xXpP_") {
				*repairs = append(*repairs, RepairNumericString)
				return json.Number(t)
			}
		}
	case "string":
		if x, ok := v.(string); ok && s.Path {
			if p, ok := unwrapMarkdownLink(x); ok {
				*repairs = append(*repairs, RepairMarkdownAutolinkPath)
				return p
			}
		}
	}
	return v
}

// repairNameValues turns the object form of a NameValues list into the
// list, in name order, and numbers and booleans among its names and values
// into their JSON text. Anything else is left for validation to report.
func repairNameValues(v any, repairs *[]string) any {
	if obj, ok := v.(map[string]any); ok {
		names := make([]string, 0, len(obj))
		for k := range obj {
			names = append(names, k)
		}
		sort.Strings(names)
		list := make([]any, 0, len(obj))
		for _, k := range names {
			list = append(list, map[string]any{"name": k, "value": obj[k]})
		}
		*repairs = append(*repairs, RepairObjectToNameValueList)
		v = list
	}
	list, ok := v.([]any)
	if !ok {
		return v
	}
	for _, item := range list {
		pair, ok := item.(map[string]any)
		if !ok {
			continue
		}
		for _, field := range []string{"name", "value"} {
			switch x := pair[field].(type) {
			case json.Number:
				pair[field] = x.String()
				*repairs = append(*repairs, RepairNumberOrBooleanToString)
			case bool:
				pair[field] = strconv.FormatBool(x)
				*repairs = append(*repairs, RepairNumberOrBooleanToString)
			}
		}
	}
	return list
}

var markdownLink = regexp.MustCompile(`^\s*\[([^\[\]]+)\]\(\s*<?([^()<>\s]+)>?\s*\)\s*$`)

// unwrapMarkdownLink recovers the path from "[README.md](http://README.md)"
// or "[x](x)": only when the link's target is its own label, possibly behind
// a scheme that chat renderers add to bare file names.
func unwrapMarkdownLink(s string) (string, bool) {
	m := markdownLink.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	label, target := strings.TrimSpace(m[1]), m[2]
	label = strings.Trim(label, "`")
	for _, scheme := range []string{"http://", "https://", "file://"} {
		if t, ok := strings.CutPrefix(target, scheme); ok {
			target = t
			break
		}
	}
	target = strings.TrimSuffix(target, "/")
	if target == label || target == strings.TrimPrefix(label, "/") {
		return label, true
	}
	return "", false
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

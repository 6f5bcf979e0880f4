package lsp

import (
	"encoding/json"
	"reflect"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec marshals payloads: types of go.lsp.dev/protocol go through its
// union-aware encoder, everything else (whale's own wire types) through
// encoding/json.
type codec struct{}

var protocolPkg = reflect.TypeFor[protocol.Position]().PkgPath()

func isProtocolValue(v any) bool {
	t := reflect.TypeOf(v)
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == protocolPkg
}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	if isProtocolValue(v) {
		return protocol.Marshal(v)
	}
	return json.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	switch p := v.(type) {
	case *jsonrpc2.RawMessage:
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	case *json.RawMessage:
		*p = append(json.RawMessage(nil), data...)
		return nil
	}
	if isProtocolValue(v) {
		return protocol.Unmarshal(data, v)
	}
	return json.Unmarshal(data, v)
}

func jsonValid(b []byte) bool { return json.Valid(b) }

func quoteJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// idOf extracts the raw "id" of a JSON object, or nil.
func idOf(body []byte) []byte {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return nil
	}
	return probe.ID
}

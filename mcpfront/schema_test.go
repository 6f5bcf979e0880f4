package mcpfront

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// specsBackend lists fixed specs and answers every call ok.
type specsBackend []toolbridge.Spec

func (b specsBackend) Tools(context.Context) ([]toolbridge.Spec, error) { return b, nil }

func (b specsBackend) Call(context.Context, string, json.RawMessage) (toolbridge.Envelope, error) {
	return toolbridge.Envelope{OK: true, Code: toolbridge.CodeOK, Text: "ok"}, nil
}

// TestBadSchemasNeverPanic serves tools whose schemas an attached server
// could report wrong: none, one without a type, one of another type. The
// server must start, serve the repairable ones as objects, leave the other
// out and still serve the good one.
func TestBadSchemasNeverPanic(t *testing.T) {
	b := specsBackend{
		{Name: "good", Description: "good", InputSchema: toolbridge.Object(nil, nil)},
		{Name: "none", Description: "no schema"},
		{Name: "untyped", Description: "no type", InputSchema: &toolbridge.Schema{Properties: map[string]*toolbridge.Schema{"x": toolbridge.Str("x")}}},
		{Name: "stringly", Description: "a string schema", InputSchema: &toolbridge.Schema{Type: "string"}},
	}
	s, err := New(context.Background(), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	go s.mcp.Run(context.Background(), st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if m, ok := tool.InputSchema.(map[string]any); !ok || m["type"] != "object" {
			t.Errorf("tool %s: input schema %v, want an object schema", tool.Name, tool.InputSchema)
		}
	}
	slices.Sort(names)
	if want := []string{"good", "none", "untyped"}; !slices.Equal(names, want) {
		t.Errorf("tools served = %v, want %v", names, want)
	}
}

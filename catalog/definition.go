package catalog

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed definition.md
var definitionDoc string

// Definition is definition: where a symbol is defined, from the editor's
// language server.
func Definition(l Lang) toolbridge.Tool {
	spec := toolbridge.Spec{Name: "definition", Description: definitionDoc, ReadOnly: true, Group: toolbridge.GroupSearch, InputSchema: positionSchema(nil)}
	return toolbridge.Define(spec, func(ctx context.Context, in positionInput) (toolbridge.Result, error) {
		path, at, err := l.locate(in.FilePath, in.Line, in.Symbol, in.Occurrence)
		if err != nil {
			return toolbridge.Result{}, err
		}
		locs, err := l.Language.Definition(ctx, path, at)
		if err != nil {
			return toolbridge.Result{}, languageFailure("definition", err)
		}
		if len(locs) == 0 {
			return toolbridge.Result{Text: fmt.Sprintf("The language server knows no definition of %s at %s:%d.", in.Symbol, in.FilePath, in.Line), Data: map[string]any{"locations": []any{}}}, nil
		}
		text, data := l.renderLocations(locs)
		return toolbridge.Result{Text: "Definition of " + in.Symbol + ":\n" + text, Data: map[string]any{"locations": data}}, nil
	})
}

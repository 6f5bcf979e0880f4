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
	return positionTool(l, "definition", definitionDoc, func(ctx context.Context, in positionInput, path string, at toolbridge.Pos) (toolbridge.Result, error) {
		locs, err := l.Language.Definition(ctx, path, at)
		if err != nil {
			return toolbridge.Result{}, languageFailure(ctx, "definition", err)
		}
		if len(locs) == 0 {
			return toolbridge.Result{Text: fmt.Sprintf("The language server knows no definition of %s at %s:%d.", in.Symbol, in.FilePath, in.Line), Data: map[string]any{"locations": []any{}}}, nil
		}
		text, data := l.renderLocations(locs)
		return toolbridge.Result{Text: "Definition of " + in.Symbol + ":\n" + text, Data: map[string]any{"locations": data}}, nil
	})
}

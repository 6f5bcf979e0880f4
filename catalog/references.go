package catalog

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed references.md
var referencesDoc string

// References is references: every use of a symbol, from the editor's
// language server.
func References(l Lang) toolbridge.Tool {
	return positionTool(l, "references", referencesDoc, func(ctx context.Context, in positionInput, path string, at toolbridge.Pos) (toolbridge.Result, error) {
		locs, err := l.Language.References(ctx, path, at)
		if err != nil {
			return toolbridge.Result{}, languageFailure(ctx, "references", err)
		}
		text, data := l.renderLocations(locs)
		return toolbridge.Result{Text: fmt.Sprintf("%d %s to %s:\n%s", len(locs), editPlural(len(locs), "reference", "references"), in.Symbol, text), Data: map[string]any{"locations": data}}, nil
	})
}

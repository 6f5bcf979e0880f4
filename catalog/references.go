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
	spec := toolbridge.Spec{Name: "references", Description: referencesDoc, ReadOnly: true, Group: toolbridge.GroupSearch, InputSchema: positionSchema(nil)}
	return toolbridge.Define(spec, func(ctx context.Context, in positionInput) (toolbridge.Result, error) {
		path, at, err := l.locate(in.FilePath, in.Line, in.Symbol, in.Occurrence)
		if err != nil {
			return toolbridge.Result{}, err
		}
		locs, err := l.Language.References(ctx, path, at)
		if err != nil {
			return toolbridge.Result{}, languageFailure("references", err)
		}
		text, data := l.renderLocations(locs)
		return toolbridge.Result{Text: fmt.Sprintf("%d %s to %s:\n%s", len(locs), editPlural(len(locs), "reference", "references"), in.Symbol, text), Data: map[string]any{"locations": data}}, nil
	})
}

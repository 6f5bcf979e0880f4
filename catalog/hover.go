package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed hover.md
var hoverDoc string

// Hover is hover: the editor's hover text (type, signature, docs) for a
// symbol.
func Hover(l Lang) toolbridge.Tool {
	spec := toolbridge.Spec{Name: "hover", Description: hoverDoc, ReadOnly: true, Group: toolbridge.GroupSearch, InputSchema: positionSchema(nil)}
	return toolbridge.Define(spec, func(ctx context.Context, in positionInput) (toolbridge.Result, error) {
		path, at, err := l.locate(in.FilePath, in.Line, in.Symbol, in.Occurrence)
		if err != nil {
			return toolbridge.Result{}, err
		}
		text, err := l.Language.Hover(ctx, path, at)
		if err != nil {
			return toolbridge.Result{}, languageFailure("hover", err)
		}
		if strings.TrimSpace(text) == "" {
			text = fmt.Sprintf("The language server has nothing to show for %s at %s:%d.", in.Symbol, in.FilePath, in.Line)
		}
		return toolbridge.Result{Text: text}, nil
	})
}

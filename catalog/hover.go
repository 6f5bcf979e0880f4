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
	return positionTool(l, "hover", hoverDoc, func(ctx context.Context, in positionInput, path string, at toolbridge.Pos) (toolbridge.Result, error) {
		text, err := l.Language.Hover(ctx, path, at)
		if err != nil {
			return toolbridge.Result{}, languageFailure(ctx, "hover", err)
		}
		if strings.TrimSpace(text) == "" {
			text = fmt.Sprintf("The language server has nothing to show for %s at %s:%d.", in.Symbol, in.FilePath, in.Line)
		}
		return toolbridge.Result{Text: text}, nil
	})
}

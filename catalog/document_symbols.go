package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed document_symbols.md
var documentSymbolsDoc string

type documentSymbolsInput struct {
	FilePath string `json:"file_path"`
}

// DocumentSymbols is document_symbols: a file's outline from the editor's
// language server.
func DocumentSymbols(l Lang) toolbridge.Tool {
	spec := toolbridge.Spec{Name: "document_symbols", Description: documentSymbolsDoc, ReadOnly: true, Group: toolbridge.GroupSearch,
		InputSchema: toolbridge.Object([]string{"file_path"}, map[string]*toolbridge.Schema{"file_path": toolbridge.PathStr("The file to outline.")})}
	return toolbridge.Define(spec, func(ctx context.Context, in documentSymbolsInput) (toolbridge.Result, error) {
		t, err := resolve(l.Workspace, in.FilePath, workspace.Read)
		if err != nil {
			return toolbridge.Result{}, err
		}
		syms, err := l.Language.DocumentSymbols(ctx, t.Abs)
		if err != nil {
			return toolbridge.Result{}, languageFailure(ctx, "document_symbols", err)
		}
		var b strings.Builder
		n := 0
		var walk func(list []toolbridge.Symbol, depth int)
		walk = func(list []toolbridge.Symbol, depth int) {
			for _, s := range list {
				if n == languageResultLimit {
					return
				}
				n++
				fmt.Fprintf(&b, "%s%d %s %s\n", strings.Repeat("  ", depth+1), s.Start.Line+1, s.Kind, s.Name)
				walk(s.Children, depth+1)
			}
		}
		walk(syms, 0)
		if n == 0 {
			return toolbridge.Result{Text: fmt.Sprintf("The language server lists no symbols in %s.", in.FilePath)}, nil
		}
		return toolbridge.Result{Text: in.FilePath + ":\n" + strings.TrimRight(b.String(), "\n")}, nil
	})
}

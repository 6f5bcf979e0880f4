package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed symbols.md
var symbolsDoc string

type symbolsInput struct {
	Query string `json:"query"`
}

// Symbols is symbols: the workspace's symbols matching a name, from the
// editor's language servers.
func Symbols(l Lang) toolbridge.Tool {
	spec := toolbridge.Spec{Name: "symbols", Description: symbolsDoc, ReadOnly: true, Group: toolbridge.GroupSearch,
		InputSchema: toolbridge.Object([]string{"query"}, map[string]*toolbridge.Schema{"query": toolbridge.Str("A symbol's name or part of it.")})}
	return toolbridge.Define(spec, func(ctx context.Context, in symbolsInput) (toolbridge.Result, error) {
		q := strings.TrimSpace(in.Query)
		if q == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "query is empty; give a symbol's name or part of it")
		}
		syms, err := l.Language.WorkspaceSymbols(ctx, q)
		if err != nil {
			return toolbridge.Result{}, languageFailure(ctx, "symbols", err)
		}
		if len(syms) == 0 {
			return toolbridge.Result{Text: fmt.Sprintf("No symbol matches %q.", q)}, nil
		}
		var b strings.Builder
		for i, s := range syms {
			if i == languageResultLimit {
				fmt.Fprintf(&b, "… and %d more; make the query more specific\n", len(syms)-i)
				break
			}
			fmt.Fprintf(&b, "%s %s  %s:%d\n", s.Kind, s.Name, l.shownPath(s.Path), s.Start.Line+1)
		}
		return toolbridge.Result{Text: strings.TrimRight(b.String(), "\n")}, nil
	})
}

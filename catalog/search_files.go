package catalog

import (
	"context"
	_ "embed"
	"strings"

	"github.com/whale-ls/whale-ls/search"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed search_files.md
var searchFilesDoc string

type searchFilesInput struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	MaxResults int    `json:"max_results"`
}

// SearchFiles is search_files: file names matching a glob, ignore-aware,
// the editor's unsaved new files included.
func SearchFiles(ws *workspace.Set, editor toolbridge.Editor, indexes FileIndexes) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "search_files",
		Description: searchFilesDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupSearch,
		InputSchema: toolbridge.Object([]string{"pattern"}, map[string]*toolbridge.Schema{
			"pattern":     toolbridge.Str("Glob for file names (doublestar): \"main.go\" and \"*_test.go\" match at any depth, \"cmd/**/*.go\" from the root; several comma-separated."),
			"path":        toolbridge.PathStr("Folder to search (default: the workspace root)."),
			"max_results": toolbridge.Int("Cap on paths shown (default 100).", 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in searchFilesInput) (toolbridge.Result, error) {
		if strings.TrimSpace(in.Pattern) == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "pattern is empty; give a file-name glob such as \"*.go\" or \"**/config.*\"")
		}
		shown, t, err := resolveSearchPath(ws, in.Path)
		if err != nil {
			return toolbridge.Result{}, err
		}
		index := indexes.of(t.Root)
		l, err := search.Files(ctx, t.Root.FS, workspace.NewIgnorer(t.Root.FS), search.FilesRequest{
			Pattern:    in.Pattern,
			Path:       t.Rel,
			MaxResults: in.MaxResults,
			Overlay:    searchOverlay(editor, t.Root),
			Index:      index,
		})
		if err != nil {
			return toolbridge.Result{}, searchFailure(t, shown, err)
		}
		text, sh := l.Text()
		return toolbridge.Result{
			Text:     text,
			Data:     map[string]any{"files": l.Total, "shown": sh.Files, "more": sh.MoreFiles, "index": indexState(index)},
			MoreHint: "narrow the search with path or a more specific pattern",
		}, nil
	})
}

package catalog

import (
	"context"
	_ "embed"

	"github.com/whale-ls/whale-ls/search"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed grep.md
var grepDoc string

type grepInput struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path"`
	Include         string `json:"include"`
	CaseInsensitive bool   `json:"case_insensitive"`
	FixedStrings    bool   `json:"fixed_strings"`
	Context         int    `json:"context"`
	OutputMode      string `json:"output_mode"`
	MaxResults      int    `json:"max_results"`
}

// grepMaxContext bounds the context lines per match.
const grepMaxContext = 20

// Grep is grep: a regular-expression search of the workspace's files (the
// editor's unsaved buffers included), ignore-aware and bounded; it reads
// the files a root's live index lists when indexes has one.
func Grep(ws *workspace.Set, editor toolbridge.Editor, indexes FileIndexes) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "grep",
		Description: grepDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupSearch,
		InputSchema: toolbridge.Object([]string{"pattern"}, map[string]*toolbridge.Schema{
			"pattern":          toolbridge.Str("RE2 regular expression (Go regexp syntax), matched line by line, such as func \\w+Handler\\(; plain text when fixed_strings is true."),
			"path":             toolbridge.PathStr("Folder or file to search (default: the workspace root)."),
			"include":          toolbridge.Str("Only files matching these globs, comma-separated: \"*.go\", \"**/*.{ts,tsx}\", \"src/**\"."),
			"case_insensitive": toolbridge.Bool("Ignore case (default false)."),
			"fixed_strings":    toolbridge.Bool("Treat pattern as plain text, not a regular expression (default false)."),
			"context":          toolbridge.Int("Lines of context before and after each match in content mode (default 0, at most 20).", 0),
			"output_mode":      toolbridge.Enum("content (default): matching lines; files: paths only; count: matching lines per file.", "content", "files", "count"),
			"max_results":      toolbridge.Int("Cap on matching lines shown (content) or files shown (files, count); default 200 lines or 100 files.", 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in grepInput) (toolbridge.Result, error) {
		if in.Pattern == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "pattern is empty; give the text or regular expression to look for")
		}
		shown, t, err := resolveSearchPath(ws, in.Path)
		if err != nil {
			return toolbridge.Result{}, err
		}
		req := search.Request{
			Pattern:         in.Pattern,
			Path:            t.Rel,
			Include:         in.Include,
			CaseInsensitive: in.CaseInsensitive,
			FixedStrings:    in.FixedStrings,
			Context:         min(max(in.Context, 0), grepMaxContext),
			Mode:            search.Mode(in.OutputMode),
			MaxResults:      in.MaxResults,
			Overlay:         searchOverlay(editor, t.Root),
			Index:           indexes.of(t.Root),
		}
		res, err := search.Grep(ctx, t.Root.FS, workspace.NewIgnorer(t.Root.FS), req)
		if err != nil {
			return toolbridge.Result{}, searchFailure(t, shown, err)
		}
		text, sh := res.Text()
		data := map[string]any{
			"files":        res.FileCount,
			"matches":      res.Matches,
			"shown_files":  sh.Files,
			"shown_lines":  sh.Lines,
			"more_files":   sh.MoreFiles,
			"more_matches": sh.MoreLines,
			"index":        indexState(req.Index),
		}
		if req.Index != nil {
			// How many files the index's content filter has yet to read
			// (grep reads every one of them).
			if st := req.Index.Status(); st.State == search.IndexReady {
				data["filter_pending"] = st.ContentsPending
			}
		}
		return toolbridge.Result{
			Text:     text,
			Data:     data,
			MoreHint: "narrow the search with path or include, lower context, or use output_mode \"files\"",
		}, nil
	})
}

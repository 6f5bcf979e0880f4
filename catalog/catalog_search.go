package catalog

import (
	"context"
	_ "embed"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/search"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed grep.md
var grepDoc string

//go:embed search_files.md
var searchFilesDoc string

// searchTools is the search group: grep and search_files.
func searchTools(d *Deps) []toolbridge.Tool {
	return []toolbridge.Tool{grepTool(d), searchFilesTool(d)}
}

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

func grepTool(d *Deps) toolbridge.Tool {
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
		shown, t, err := resolveSearchPath(d, in.Path)
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
			Overlay:         searchOverlay(d, t.Root),
		}
		res, err := search.Grep(ctx, t.Root.FS, workspace.NewIgnorer(t.Root.FS), req)
		if err != nil {
			return toolbridge.Result{}, searchFailure(d, t, shown, err)
		}
		text, sh := res.Text()
		return toolbridge.Result{
			Text: text,
			Data: map[string]any{
				"files":        len(res.Files),
				"matches":      res.Matches,
				"shown_files":  sh.Files,
				"shown_lines":  sh.Lines,
				"more_files":   sh.MoreFiles,
				"more_matches": sh.MoreLines,
			},
			MoreHint: "narrow the search with path or include, lower context, or use output_mode \"files\"",
		}, nil
	})
}

type searchFilesInput struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	MaxResults int    `json:"max_results"`
}

func searchFilesTool(d *Deps) toolbridge.Tool {
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
		shown, t, err := resolveSearchPath(d, in.Path)
		if err != nil {
			return toolbridge.Result{}, err
		}
		l, err := search.Files(ctx, t.Root.FS, workspace.NewIgnorer(t.Root.FS), search.FilesRequest{
			Pattern:    in.Pattern,
			Path:       t.Rel,
			MaxResults: in.MaxResults,
			Overlay:    searchOverlay(d, t.Root),
		})
		if err != nil {
			return toolbridge.Result{}, searchFailure(d, t, shown, err)
		}
		text, sh := l.Text()
		return toolbridge.Result{
			Text:     text,
			Data:     map[string]any{"files": len(l.Paths), "shown": sh.Files, "more": sh.MoreFiles},
			MoreHint: "narrow the search with path or a more specific pattern",
		}, nil
	})
}

// resolveSearchPath resolves the optional path of a search tool for reading.
func resolveSearchPath(d *Deps, p string) (string, workspace.Target, error) {
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	t, err := d.Resolve(p, workspace.Read)
	return p, t, err
}

// searchOverlay returns the open editor buffers under root as search
// overlay text, keyed by slash path relative to the root.
func searchOverlay(d *Deps, root *workspace.Root) map[string][]byte {
	if d.Editor == nil || root == nil {
		return nil
	}
	docs := d.Editor.Documents()
	if len(docs) == 0 {
		return nil
	}
	overlay := make(map[string][]byte, len(docs))
	for _, doc := range docs {
		for _, base := range []string{root.Path, root.Real} {
			if base == "" {
				continue
			}
			rel, err := filepath.Rel(base, doc.Path)
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
				continue
			}
			overlay[filepath.ToSlash(rel)] = []byte(doc.Text)
			break
		}
	}
	return overlay
}

// searchFailure turns an error of the search package into a Failure the
// model can act on.
func searchFailure(d *Deps, t workspace.Target, shown string, err error) error {
	var pe *search.PatternError
	var ge *search.GlobError
	var ptl *search.PatternTooLargeError
	var gtl *search.GlobTooLargeError
	var wl *search.WorkLimitError
	switch {
	case errors.As(err, &ptl):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "%s — search for a shorter distinctive part of it (a match never spans lines, so one line's worth is enough)", ptl)
	case errors.As(err, &wl):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "grep stopped: %s (the automaton this pattern needs keeps growing with the text there); simplify the pattern (fewer overlapping alternatives, counted repeats and wide classes), search for a literal part of it, or leave that file out with path or include", wl)
	case errors.As(err, &gtl):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "%s; use fewer or shorter globs, separated by commas", gtl)
	case errors.As(err, &pe):
		if pe.LooksLiteral {
			return toolbridge.Fail(toolbridge.CodeInvalidInput, "pattern %s is not a valid RE2 regular expression (%v); to search for this text as written, set fixed_strings:true, or escape the metacharacters with \\", excerpt.Quote(pe.Pattern), pe.Err)
		}
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "pattern %s is not a valid RE2 regular expression (%v); fix it (Go regexp syntax has no lookaround or backreferences), or set fixed_strings:true to search for plain text", excerpt.Quote(pe.Pattern), pe.Err)
	case errors.As(err, &ge):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "glob %s is not valid (an unclosed [ or {); use globs like \"*.go\", \"**/*.{ts,tsx}\" or \"src/**\", comma-separated", excerpt.Quote(ge.Glob))
	case errors.Is(err, search.ErrSymlink):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "%s is a symlink, and search never follows symlinks; search the folder or file it points to by its own path", excerpt.Text(shown))
	case errors.Is(err, search.ErrNotDir):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "%s is a file, not a folder; give its folder as path, or use read_file to read it", excerpt.Text(shown))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return statFailure(d, t, shown, err)
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return statFailure(d, t, shown, err)
	}
	return err
}

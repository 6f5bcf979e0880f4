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

// FileIndexes finds the live file index of a workspace root; nil, or a
// nil result, means searches of that root walk the folder.
type FileIndexes func(root *workspace.Root) *search.Index

// of returns the index of root, or nil.
func (f FileIndexes) of(root *workspace.Root) *search.Index {
	if f == nil || root == nil {
		return nil
	}
	return f(root)
}

// indexState is what a search result says about the index of its root:
// "ready" when it answered from the index, else the state that made it walk.
func indexState(x *search.Index) string {
	if x == nil {
		return "none"
	}
	return string(x.Status().State)
}

// resolveSearchPath resolves the optional path of a search tool for reading.
func resolveSearchPath(ws *workspace.Set, p string) (string, workspace.Target, error) {
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	t, err := resolve(ws, p, workspace.Read)
	return p, t, err
}

// searchOverlay returns the open editor buffers under root as search
// overlay text, keyed by slash path relative to the root.
func searchOverlay(editor toolbridge.Editor, root *workspace.Root) map[string][]byte {
	if editor == nil || root == nil {
		return nil
	}
	docs := editor.Documents()
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
func searchFailure(t workspace.Target, shown string, err error) error {
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
		return statFailure(t, shown, err)
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return statFailure(t, shown, err)
	}
	return err
}

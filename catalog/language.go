package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// The language tools (problems, symbols, document_symbols, definition,
// references, hover, rename) ask the editor's own language servers through
// toolbridge.Language; they are listed only when the editor offers it. A
// position is a line number and the symbol's text on that line: models do
// not count columns.

// Lang is what the language tools need: the workspace, the editor's
// buffers (nil: none) and its language features.
type Lang struct {
	Workspace *workspace.Set
	Editor    toolbridge.Editor
	Language  toolbridge.Language
}

// languageResultLimit bounds the locations, symbols and problems a result
// lists.
const languageResultLimit = 100

// fileText is a file's current text: the editor's buffer when open.
func (l Lang) fileText(t workspace.Target, shown string) (string, error) {
	if l.Editor != nil {
		if d, ok := l.Editor.Document(t.Abs); ok {
			return d.Text, nil
		}
	}
	b, err := fs.ReadFile(t.Root.FS.FS(), t.Rel)
	if err != nil {
		return "", statFailure(t, shown, err)
	}
	return string(b), nil
}

// locate resolves a model's position: the line (1-based) of file_path and
// the symbol's text on it; occurrence (1-based) picks one when the symbol
// is on the line more than once.
func (l Lang) locate(shown string, line int, symbol string, occurrence int) (string, toolbridge.Pos, error) {
	t, err := resolve(l.Workspace, shown, workspace.Read)
	if err != nil {
		return "", toolbridge.Pos{}, err
	}
	text, err := l.fileText(t, shown)
	if err != nil {
		return "", toolbridge.Pos{}, err
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if line < 1 || line > len(lines) {
		return "", toolbridge.Pos{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "%s has %d lines; line %d is not one of them — read the file and give the line the symbol is on", shown, len(lines), line)
	}
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return "", toolbridge.Pos{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "symbol is empty; give the name as it is written on line %d", line)
	}
	cols := occurrences(lines[line-1], symbol)
	switch {
	case len(cols) == 0:
		return "", toolbridge.Pos{}, toolbridge.Fail(toolbridge.CodeNotFound, "%s is not on line %d of %s, which reads %s; read the file and give the line the symbol is on", excerpt.Quote(symbol), line, shown, excerpt.Quote(lines[line-1]))
	case occurrence > len(cols):
		return "", toolbridge.Pos{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "%s is on line %d only %d times; occurrence %d is not one of them", excerpt.Quote(symbol), line, len(cols), occurrence)
	case occurrence > 0:
		return t.Abs, toolbridge.Pos{Line: line - 1, Col: cols[occurrence-1]}, nil
	case len(cols) > 1:
		var at []string
		for i, c := range cols {
			at = append(at, fmt.Sprintf("%d (column %d)", i+1, utf8.RuneCountInString(lines[line-1][:c])+1))
		}
		return "", toolbridge.Pos{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "%s is on line %d %d times: occurrence %s; call again with occurrence set to the one you mean", excerpt.Quote(symbol), line, len(cols), strings.Join(at, ", "))
	}
	return t.Abs, toolbridge.Pos{Line: line - 1, Col: cols[0]}, nil
}

// occurrences are the byte columns where symbol stands on the line as a
// whole word (as a substring when it has no word characters at its ends).
func occurrences(line, symbol string) []int {
	var cols []int
	word := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	first, _ := utf8.DecodeRuneInString(symbol)
	last, _ := utf8.DecodeLastRuneInString(symbol)
	for i := 0; i+len(symbol) <= len(line); {
		j := strings.Index(line[i:], symbol)
		if j < 0 {
			break
		}
		at := i + j
		before, _ := utf8.DecodeLastRuneInString(line[:at])
		after, _ := utf8.DecodeRuneInString(line[at+len(symbol):])
		if (!word(first) || at == 0 || !word(before)) && (!word(last) || at+len(symbol) == len(line) || !word(after)) {
			cols = append(cols, at)
		}
		i = at + max(1, len(symbol))
	}
	return cols
}

// shownPath is a path as results show it: relative to its workspace root
// when it is inside one.
func (l Lang) shownPath(abs string) string {
	if l.Workspace != nil {
		for _, r := range l.Workspace.Roots() {
			if rel, err := filepath.Rel(r.Real, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
		}
	}
	return abs
}

// lineText is line (0-based) of a file, for a result that shows where a
// location is.
func (l Lang) lineText(abs string, line int) string {
	t, err := resolve(l.Workspace, abs, workspace.Read)
	if err != nil {
		return ""
	}
	text, err := l.fileText(t, abs)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if line < 0 || line >= len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[line])
}

// renderLocations lists locations as "path:line: text", sorted.
func (l Lang) renderLocations(locs []toolbridge.Location) (string, []map[string]any) {
	sort.Slice(locs, func(i, j int) bool {
		if locs[i].Path != locs[j].Path {
			return locs[i].Path < locs[j].Path
		}
		return locs[i].Start.Line < locs[j].Start.Line
	})
	var b strings.Builder
	data := make([]map[string]any, 0, len(locs))
	for i, loc := range locs {
		if i == languageResultLimit {
			fmt.Fprintf(&b, "… and %d more\n", len(locs)-languageResultLimit)
			break
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", l.shownPath(loc.Path), loc.Start.Line+1, excerpt.Text(l.lineText(loc.Path, loc.Start.Line)))
		data = append(data, map[string]any{"path": loc.Path, "line": loc.Start.Line + 1})
	}
	return strings.TrimRight(b.String(), "\n"), data
}

// languageFailure is the failure of a request the editor could not
// answer; a Failure the front end made, or a cancellation, stays what it is.
func languageFailure(ctx context.Context, what string, err error) error {
	var f *toolbridge.Failure
	switch {
	case errors.As(err, &f):
		return err
	case ctx.Err() != nil:
		return toolbridge.Fail(toolbridge.CodeCanceled, "%s was canceled before the editor answered; call it again if the answer is still needed", what)
	}
	return toolbridge.Fail(toolbridge.CodeNotConfigured, "the editor could not answer %s (%v); its language server may still be starting — try again shortly, or use grep", what, err)
}

// positionSchema is the input of the position tools.
func positionSchema(extra map[string]*toolbridge.Schema) *toolbridge.Schema {
	props := map[string]*toolbridge.Schema{
		"file_path":  toolbridge.PathStr("The file the symbol is in."),
		"line":       toolbridge.Int("The 1-based line the symbol is on (as read_file numbers it).", 1),
		"symbol":     toolbridge.Str("The symbol's name exactly as written on that line."),
		"occurrence": toolbridge.Int("Which occurrence on the line, when the name is there more than once (1-based).", 1),
	}
	required := []string{"file_path", "line", "symbol"}
	for k, v := range extra {
		props[k] = v
		required = append(required, k)
	}
	return toolbridge.Object(required, props)
}

// positionTool builds a read-only tool over a position: it locates the
// symbol, then answer asks the language server and renders the result.
func positionTool(l Lang, name, doc string, answer func(ctx context.Context, in positionInput, path string, at toolbridge.Pos) (toolbridge.Result, error)) toolbridge.Tool {
	spec := toolbridge.Spec{Name: name, Description: doc, ReadOnly: true, Group: toolbridge.GroupSearch, InputSchema: positionSchema(nil)}
	return toolbridge.Define(spec, func(ctx context.Context, in positionInput) (toolbridge.Result, error) {
		path, at, err := l.locate(in.FilePath, in.Line, in.Symbol, in.Occurrence)
		if err != nil {
			return toolbridge.Result{}, err
		}
		return answer(ctx, in, path, at)
	})
}

type positionInput struct {
	FilePath   string `json:"file_path"`
	Line       int    `json:"line"`
	Symbol     string `json:"symbol"`
	Occurrence int    `json:"occurrence"`
}

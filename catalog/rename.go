package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed rename.md
var renameDoc string

// renameInput is rename's input: a position and the new name.
type renameInput struct {
	positionInput
	NewName string `json:"new_name"`
}

// Rename is rename: the editor's rename provider computes the edits, and c
// applies them like any change (versioned, journaled, reviewable).
func Rename(l Lang, c *Committer) toolbridge.Tool {
	spec := toolbridge.Spec{Name: "rename", Description: renameDoc, Group: toolbridge.GroupEdit,
		InputSchema: positionSchema(map[string]*toolbridge.Schema{"new_name": toolbridge.Str("The new name.")})}
	return toolbridge.Define(spec, func(ctx context.Context, in renameInput) (toolbridge.Result, error) {
		if strings.TrimSpace(in.NewName) == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "new_name is empty; give the name the symbol should have")
		}
		path, at, err := l.locate(in.FilePath, in.Line, in.Symbol, in.Occurrence)
		if err != nil {
			return toolbridge.Result{}, err
		}
		files, err := l.Language.Rename(ctx, path, at, in.NewName)
		if err != nil {
			return toolbridge.Result{}, languageFailure(ctx, "rename", err)
		}
		if len(files) == 0 {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNotFound, "the language server cannot rename %s at %s:%d (no edits); check the line and name, or use edit", in.Symbol, in.FilePath, in.Line)
		}
		return c.applyFileEdits(ctx, files, fmt.Sprintf("Renamed %s to %s", in.Symbol, in.NewName))
	})
}

// applyFileEdits commits text edits computed by the editor against each
// file's current text, all files or none.
func (c *Committer) applyFileEdits(ctx context.Context, files []toolbridge.FileEdits, head string) (toolbridge.Result, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	paths := make([]string, 0, len(files))
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	chs, note, err := c.commitPath(ctx, paths, func(load loader) ([]*fileChange, error) {
		var chs []*fileChange
		for _, f := range files {
			src, err := load(f.Path, false)
			if err != nil {
				return nil, err
			}
			src.shown = src.displayPath()
			newRaw, ok := applyTextEdits(string(src.raw), f.Edits)
			if !ok || string(src.raw) != f.Base {
				return nil, toolbridge.Fail(toolbridge.CodeWriteConflict, "%s changed since the editor computed the rename; nothing was changed — call rename again", src.shown)
			}
			planned := edits.Change{OldText: editDecodedText(src.raw), NewText: editDecodedText([]byte(newRaw)), New: []byte(newRaw)}
			if d, err := edits.Decode(src.raw); err == nil {
				planned.Format = d.Format
			}
			if newRaw != string(src.raw) {
				chs = append(chs, src.change(planned))
			}
		}
		if len(chs) == 0 {
			return nil, toolbridge.Fail(toolbridge.CodeNoChange, "the rename changes nothing; the symbol may already have that name")
		}
		return chs, nil
	})
	if err != nil {
		return toolbridge.Result{}, err
	}
	texts := make([]string, 0, len(chs))
	for _, ch := range chs {
		texts = append(texts, ch.result("", edits.Applied{}).Text)
	}
	head = fmt.Sprintf("%s in %d %s.", head, len(chs), editPlural(len(chs), "file", "files"))
	if note != "" {
		head += " " + note
	}
	return toolbridge.Result{Text: head + "\n\n" + strings.Join(texts, "\n\n"), MoreHint: "the rename was applied in full; read_file shows the result"}, nil
}

// applyTextEdits applies non-overlapping edits (line, byte column; lines
// end at "\r\n", "\r" or "\n") to text; false when a position is not in it
// or edits overlap.
func applyTextEdits(text string, es []toolbridge.TextEdit) (string, bool) {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case '\n':
			starts = append(starts, i+1)
		}
	}
	offset := func(p toolbridge.Pos) (int, bool) {
		if p.Line < 0 || p.Line >= len(starts) || p.Col < 0 {
			return 0, false
		}
		end := len(text)
		if p.Line+1 < len(starts) {
			end = starts[p.Line+1]
		}
		o := starts[p.Line] + p.Col
		return o, o <= end
	}
	type span struct {
		from, to int
		text     string
	}
	spans := make([]span, 0, len(es))
	for _, e := range es {
		from, ok1 := offset(e.Start)
		to, ok2 := offset(e.End)
		if !ok1 || !ok2 || to < from {
			return "", false
		}
		spans = append(spans, span{from, to, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s.from < pos {
			return "", false
		}
		b.WriteString(text[pos:s.from])
		b.WriteString(s.text)
		pos = s.to
	}
	b.WriteString(text[pos:])
	return b.String(), true
}

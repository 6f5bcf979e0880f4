package lsp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
	"go.lsp.dev/protocol"
)

// applyGrace is how long the server waits for the didChange notifications
// that follow an applied edit to bring the overlay to the expected text.
const applyGrace = 3 * time.Second

// editorBridge implements toolbridge.Editor on top of the overlay and the
// connection.
type editorBridge struct{ s *Server }

func (e *editorBridge) Document(path string) (toolbridge.Document, bool) {
	d, ok := e.s.docs.get(path)
	if !ok {
		return toolbridge.Document{}, false
	}
	return d.toolDocument(), true
}

func (e *editorBridge) Documents() []toolbridge.Document {
	all := e.s.docs.all()
	out := make([]toolbridge.Document, len(all))
	for i, d := range all {
		out[i] = d.toolDocument()
	}
	return out
}

// ApplyEdits sends one workspace/applyEdit with a TextDocumentEdit per
// document, pinned to the version the change was planned on, then waits
// for the overlay to reach exactly the new texts. The caller holds the
// documents' commit locks, so the only other writers are the user and the
// editor itself.
func (e *editorBridge) ApplyEdits(ctx context.Context, changes []toolbridge.DocumentChange) error {
	s := e.s
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	var docEdits []textDocumentEdit
	var names []string
	for _, c := range changes {
		d, ok := s.docs.get(c.Path)
		if !ok {
			return conflict("%s was closed in the editor after the edit was planned; nothing was applied — read it again (from disk now) and redo the edit", c.Path)
		}
		if d.version != c.Version {
			return &toolbridge.DocumentMovedError{Path: c.Path, Planned: c.Version, Actual: d.version}
		}
		docEdits = append(docEdits, textDocumentEdit{
			TextDocument: versionedID{URI: d.uri, Version: d.version},
			Edits:        lspEdits(d.text, c.Edits, enc),
		})
		names = append(names, c.Path)
	}
	var res applyResult
	label := "whale: edit " + strings.Join(names, ", ")
	if _, err := s.conn.Call(ctx, protocol.MethodWorkspaceApplyEdit, applyEditParams{Edit: workspaceEdit{DocumentChanges: docEdits}, Label: label}, &res); err != nil {
		if ctx.Err() != nil {
			return toolbridge.Fail(toolbridge.CodeCanceled, "the edit was canceled while the editor was applying it; read %s again to see whether it changed", strings.Join(names, ", "))
		}
		return conflict("the editor did not accept the edit (%v); read the file again and redo the edit", err)
	}
	if !res.Applied {
		for _, c := range changes {
			if d, ok := s.docs.get(c.Path); ok && d.version != c.Version {
				// The user typed before the edit arrived: the editor refused
				// the stale version, and the change can be planned again.
				return &toolbridge.DocumentMovedError{Path: c.Path, Planned: c.Version, Actual: d.version}
			}
		}
		reason := res.FailureReason
		if reason == "" {
			reason = "no reason given"
		}
		return conflict("the editor refused the edit of %s (%s); nothing was applied — read the file again and redo the edit", strings.Join(names, ", "), reason)
	}
	wctx, cancel := context.WithTimeout(ctx, applyGrace)
	defer cancel()
	reached := s.docs.waitUntil(wctx, func(get func(string) (overlayDoc, bool)) bool {
		for _, c := range changes {
			if d, ok := get(c.Path); !ok || !appliedText(d.text, c.NewText) {
				return false
			}
		}
		return true
	})
	if reached {
		return nil
	}
	for _, c := range changes {
		d, ok := s.docs.get(c.Path)
		switch {
		case !ok:
			return conflict("%s was closed in the editor while the edit was applied; read it from disk and check the change", c.Path)
		case d.version == c.Version:
			return conflict("the editor answered that it applied the edit of %s but the document did not change (still version %d); the edit was not applied — read the file again and redo the edit", c.Path, d.version)
		case !appliedText(d.text, c.NewText):
			return conflict("%s is now version %d but its text is not what the edit should produce: the user or another tool changed it while the edit was applied; read it again and check before editing", c.Path, d.version)
		}
	}
	return nil
}

// appliedText reports whether a document's text after an edit is the text
// the edit should produce: the same, or with the final newline an editor
// keeps on its buffer when the new text has none (Neovim's buffer keeps
// 'eol', so its text always ends with a newline and the file is saved with
// one).
func appliedText(got, want string) bool {
	return got == want || (!strings.HasSuffix(want, "\n") && got == want+"\n")
}

func conflict(format string, args ...any) error {
	return toolbridge.Fail(toolbridge.CodeWriteConflict, format, args...)
}

// SaveDocuments asks the editor to save the given documents through
// whale/saveDocuments, when the client declared it.
func (e *editorBridge) SaveDocuments(ctx context.Context, paths []string) ([]string, bool, error) {
	s := e.s
	s.mu.Lock()
	supported := s.caps.saveDocuments
	s.mu.Unlock()
	if !supported {
		return nil, false, nil
	}
	byURI := map[string]string{}
	var uris []string
	for _, p := range paths {
		if d, ok := s.docs.get(p); ok {
			uris = append(uris, d.uri)
			byURI[d.uri] = p
		}
	}
	var res saveDocumentsResult
	if _, err := s.conn.Call(ctx, methodSaveDocuments, saveDocumentsParams{URIs: uris}, &res); err != nil {
		return nil, true, fmt.Errorf("%s: %w", methodSaveDocuments, err)
	}
	var saved []string
	for _, u := range res.Saved {
		if p, ok := byURI[u]; ok {
			saved = append(saved, p)
		}
	}
	return saved, true, nil
}

// lspEdits converts edits of text (byte columns) to LSP text edits in the
// negotiated position encoding.
func lspEdits(text string, es []toolbridge.TextEdit, enc string) []textEdit {
	out := make([]textEdit, 0, len(es))
	for _, e := range es {
		out = append(out, textEdit{
			Range:   Range{Start: lspPosition(text, e.Start, enc), End: lspPosition(text, e.End, enc)},
			NewText: e.NewText,
		})
	}
	return out
}

// lspPosition converts a line and byte column of text to an LSP position.
func lspPosition(text string, p toolbridge.Pos, enc string) Position {
	start, _ := lineStart(text, uint32(p.Line))
	end := min(start+p.Col, len(text))
	return Position{Line: uint32(p.Line), Character: units(text[start:end], enc)}
}

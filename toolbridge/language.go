package toolbridge

import (
	"context"
)

// Language is what an editor that declared languageFeatures answers: its
// diagnostics and its own language servers' answers (definition,
// references, hover, symbols, rename). Positions are Pos (0-based
// line, byte column); the front end converts to and from the encoding the
// editor speaks. A nil Language means the editor offers none of this, and
// the tools that need it are not listed.
type Language interface {
	// Diagnostics returns the problems the editor knows of in the files
	// (all files when paths is empty).
	Diagnostics(ctx context.Context, paths []string) (Problems, error)
	Definition(ctx context.Context, path string, at Pos) ([]Location, error)
	References(ctx context.Context, path string, at Pos) ([]Location, error)
	// Hover is the hover text at a position, as Markdown or plain text.
	Hover(ctx context.Context, path string, at Pos) (string, error)
	DocumentSymbols(ctx context.Context, path string) ([]Symbol, error)
	WorkspaceSymbols(ctx context.Context, query string) ([]Symbol, error)
	// Rename returns the edits the editor's rename provider computes; it
	// applies nothing.
	Rename(ctx context.Context, path string, at Pos, newName string) ([]FileEdits, error)
}

// Severities of a Diagnostic, as LSP numbers them.
const (
	SeverityError       = 1
	SeverityWarning     = 2
	SeverityInformation = 3
	SeverityHint        = 4
)

// Problems is what the editor reports about files: their diagnostics and,
// when it says, how often each file's diagnostics were published.
type Problems struct {
	Items []Diagnostic
	// Published counts, per file, the times the editor received that
	// file's diagnostics from a language server; nil when the editor does
	// not say. A count that moved since a change tells that a language
	// server answered for the changed text, even when it found nothing new.
	Published map[string]int64
}

// Diagnostic is one problem the editor reports in a file.
type Diagnostic struct {
	Path       string
	Start, End Pos
	Severity   int
	Message    string
	Source     string
	Code       string
}

// Location is a range in a file.
type Location struct {
	Path       string
	Start, End Pos
}

// Symbol is a named thing in a file (a function, a type, a field …) with
// the symbols inside it.
type Symbol struct {
	Name, Kind, Container string
	Path                  string
	Start                 Pos
	Children              []Symbol
}

// FileEdits are the text edits of one file, computed against Base, the
// file's text when the editor computed them: whoever applies them checks
// that the file still holds Base, so that no edit lands shifted.
type FileEdits struct {
	Path  string
	Base  string
	Edits []TextEdit
}

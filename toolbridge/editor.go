package toolbridge

import (
	"context"
	"fmt"
)

// Document is an editor buffer as the server's overlay holds it: the only
// source of "current version" and of unsaved text.
type Document struct {
	Path    string // absolute, cleaned file path
	URI     string
	Version int32
	Text    string // the buffer text exactly as the editor has it (line endings included)
}

// DocumentChange asks the editor to change one open document at Version by
// Edits (ranges in the buffer text at that version, sorted, not
// overlapping), which must leave it holding exactly NewText.
type DocumentChange struct {
	Path    string
	Version int32
	Edits   []TextEdit
	NewText string
}

// DocumentMovedError is the failure of ApplyEdits when a document was no
// longer at the version the change was planned on (the user typed, or a
// tool outside whale changed it): nothing was applied, and a change planned
// again on the new text may well succeed.
type DocumentMovedError struct {
	Path            string
	Planned, Actual int32
}

func (e *DocumentMovedError) Error() string {
	return fmt.Sprintf("%s changed in the editor (version %d, planned against %d)", e.Path, e.Actual, e.Planned)
}

// Editor is the editor on the other end of the language server. Tools use it
// to see open buffers and to change them; it is nil when no editor is
// attached (the `whale-ls call` command line), and tools then work on disk.
type Editor interface {
	// Document returns the open buffer of the file at path (absolute), if any.
	Document(path string) (Document, bool)
	// Documents returns a snapshot of every open buffer.
	Documents() []Document
	// ApplyEdits changes all the given documents or none. It returns nil once
	// the overlay holds exactly each NewText; a *DocumentMovedError when a
	// document had moved past its Version before the editor applied
	// anything; and a *Failure with code write_conflict when the editor
	// refused for another reason, did not apply, or the document changed
	// while it applied.
	ApplyEdits(ctx context.Context, changes []DocumentChange) error
	// SaveDocuments asks the editor to save the documents at paths. supported
	// is false when the client cannot save on request; saved lists the paths
	// that were written to disk.
	SaveDocuments(ctx context.Context, paths []string) (saved []string, supported bool, err error)
}

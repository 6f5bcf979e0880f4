package toolbridge

import "context"

// Document is an editor buffer as the server's overlay holds it: the only
// source of "current version" and of unsaved text.
type Document struct {
	Path    string // absolute, cleaned file path
	URI     string
	Version int32
	Text    string // the buffer text exactly as the editor has it (line endings included)
}

// DocumentChange asks the editor to turn one open document from OldText into
// NewText, pinned to Version.
type DocumentChange struct {
	Path    string
	Version int32
	OldText string
	NewText string
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
	// the overlay holds exactly each NewText, and a *Failure with code
	// write_conflict when the editor refused, did not apply, or the user
	// changed a document meanwhile.
	ApplyEdits(ctx context.Context, changes []DocumentChange) error
	// SaveDocuments asks the editor to save the documents at paths. supported
	// is false when the client cannot save on request; saved lists the paths
	// that were written to disk.
	SaveDocuments(ctx context.Context, paths []string) (saved []string, supported bool, err error)
}

// Package textpos holds the two position types that the text engine (edits)
// and the tool contract (toolbridge) share: a position in a text and an edit
// of a range. It imports nothing, so that the contract can name them
// without depending on the engine.
package textpos

// Pos is a position in a text: Line is 0-based, and lines end at "\r\n",
// "\r" or "\n" as in LSP; Col is a byte offset into that line. Callers
// convert Col to the position encoding their client speaks.
type Pos struct{ Line, Col int }

// TextEdit replaces the range [Start, End) of the old text with NewText.
type TextEdit struct {
	Start, End Pos
	NewText    string
}

package toolbridge

// Pos is a position in a file's text, as the Editor and Language
// interfaces speak of it: Line is 0-based, and lines end at "\r\n", "\r" or
// "\n" as in LSP; Col is a byte offset into that line. The front that
// meets a client converts Col to the position encoding the client speaks.
type Pos struct{ Line, Col int }

// TextEdit replaces the range [Start, End) of a text with NewText.
type TextEdit struct {
	Start, End Pos
	NewText    string
}

package lsp

import (
	"unicode/utf8"
)

// Position encodings the server can negotiate (LSP 3.17 general.positionEncodings).
const (
	encUTF8  = "utf-8"
	encUTF16 = "utf-16"
	encUTF32 = "utf-32"
)

// Position is an LSP position: zero-based line, and a character offset in the
// negotiated encoding's code units.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is an LSP range, end exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// chooseEncoding picks UTF-8 when the client offers it (no conversion cost),
// then UTF-32, else the mandatory UTF-16.
func chooseEncoding(offered []string) string {
	for _, want := range []string{encUTF8, encUTF32} {
		for _, o := range offered {
			if o == want {
				return want
			}
		}
	}
	return encUTF16
}

// lineStart returns the byte offset where line begins in text (LSP lines end
// at "\n", "\r\n" or a lone "\r"), or len(text) and false when text has
// fewer lines.
func lineStart(text string, line uint32) (int, bool) {
	if line == 0 {
		return 0, true
	}
	var n uint32
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
		default:
			continue
		}
		n++
		if n == line {
			return i + 1, true
		}
	}
	return len(text), false
}

// offsetOf converts a position to a byte offset in text. A character past
// the end of its line means the end of the line, and a line past the end of
// the text means the end of the text, as the LSP specification asks. A
// position inside a UTF-16 surrogate pair rounds down to the character.
func offsetOf(text string, p Position, enc string) int {
	start, ok := lineStart(text, p.Line)
	if !ok {
		return len(text)
	}
	i := start
	units := uint32(0)
	for i < len(text) && units < p.Character {
		c := text[i]
		if c == '\n' || c == '\r' {
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		var w uint32
		switch enc {
		case encUTF8:
			w = uint32(size)
		case encUTF32:
			w = 1
		default:
			w = 1
			if r >= 0x10000 && r != utf8.RuneError {
				w = 2
			}
		}
		if units+w > p.Character {
			break
		}
		units += w
		i += size
	}
	return i
}

// positionOf converts a byte offset of text into a position.
func positionOf(text string, offset int, enc string) Position {
	if offset > len(text) {
		offset = len(text)
	}
	var line uint32
	start := 0
	for i := 0; i < offset; i++ {
		switch text[i] {
		case '\n':
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				if i+1 == offset {
					// offset between \r and \n: treat as the end of the line
					return Position{Line: line, Character: units(text[start:i], enc)}
				}
				i++
			}
		default:
			continue
		}
		line++
		start = i + 1
	}
	return Position{Line: line, Character: units(text[start:offset], enc)}
}

// units counts s in the encoding's code units.
func units(s string, enc string) uint32 {
	switch enc {
	case encUTF8:
		return uint32(len(s))
	case encUTF32:
		return uint32(utf8.RuneCountInString(s))
	}
	var n uint32
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

package catalog

import (
	"bytes"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/edits"
)

// Encodings sniffEncoding tells apart; the edits package decodes all but
// plain UTF-8, which read_file streams itself.
const (
	encUTF8    = "utf-8"
	encUTF8BOM = "utf-8-bom"
	encUTF16LE = "utf-16le"
	encUTF16BE = "utf-16be"
	encGB18030 = "gb18030"
	// The 8-bit guesses edits.Decode makes when nothing above fits.
	encLatin1      = string(edits.Latin1)
	encWindows1252 = string(edits.Windows1252)
)

// legacyEncodingNote is what read_file says under a file it decoded from a
// guessed 8-bit encoding ("" for every other encoding): the guess, and what
// the edit tools will write into such a file.
func legacyEncodingNote(enc string) string {
	var name string
	switch enc {
	case encLatin1:
		name = "Latin-1 (ISO-8859-1)"
	case encWindows1252:
		name = "Windows-1252"
	default:
		return ""
	}
	return "(decoded from " + name + ", a guess: edits to this file may add only ASCII and characters it already contains)"
}

// sniffEncoding guesses the encoding of a file from its first bytes. It
// returns "" for binary content (a NUL byte without a UTF-16 BOM).
// Plain UTF-8 is assumed when the head is valid UTF-8 (a cut character at
// the end of the head is allowed); any other head gives encGB18030, which
// stands for "not UTF-8": edits.Decode then tells GB18030 from ISO-8859-1
// and Windows-1252 on the whole file.
func sniffEncoding(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		return encUTF8BOM
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return encUTF16LE
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return encUTF16BE
	case bytes.IndexByte(head, 0) >= 0:
		return ""
	}
	valid := head
	for i := 0; i < utf8.UTFMax && len(valid) > 0 && !utf8.Valid(valid); i++ {
		valid = valid[:len(valid)-1]
	}
	if utf8.Valid(valid) {
		return encUTF8
	}
	return encGB18030
}

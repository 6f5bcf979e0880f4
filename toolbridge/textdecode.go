package toolbridge

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// Text encodings read_file recognises.
const (
	encUTF8    = "utf-8"
	encUTF8BOM = "utf-8-bom"
	encUTF16LE = "utf-16le"
	encUTF16BE = "utf-16be"
	encGB18030 = "gb18030"
)

// sniffEncoding guesses the encoding of a file from its first bytes. It
// returns "" for binary content (a NUL byte without a UTF-16 BOM).
// Plain UTF-8 is assumed when the head is valid UTF-8 (a cut character at
// the end of the head is allowed).
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

// decodeWhole decodes a whole file in a non-UTF-8 encoding. ok is false when
// the bytes are not valid in that encoding, which makes the file binary.
func decodeWhole(b []byte, enc string) (string, bool) {
	switch enc {
	case encUTF8BOM:
		b = b[3:]
		return string(b), utf8.Valid(b)
	case encUTF16LE, encUTF16BE:
		b = b[2:]
		if len(b)%2 != 0 {
			return "", false
		}
		order := binary.ByteOrder(binary.LittleEndian)
		if enc == encUTF16BE {
			order = binary.BigEndian
		}
		units := make([]uint16, len(b)/2)
		for i := range units {
			units[i] = order.Uint16(b[2*i:])
		}
		return string(utf16.Decode(units)), true
	case encGB18030:
		out, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b)
		if err != nil || bytes.ContainsRune(out, utf8.RuneError) || bytes.IndexByte(out, 0) >= 0 {
			return "", false
		}
		return string(out), true
	}
	return string(b), utf8.Valid(b)
}

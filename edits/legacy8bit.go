package edits

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// CodeEditRejected marks an edit that is well formed but that whale will not
// write, such as one that needs characters a legacy 8-bit file cannot take.
const CodeEditRejected = "edit_rejected"

// legacyHighShare bounds the non-ASCII bytes of a legacy 8-bit file: at most
// one byte in legacyHighShare is 0x80 or above.
const legacyHighShare = 2

// decodeLegacy8Bit decodes raw as ISO-8859-1 or Windows-1252 when it looks
// like such text. It is Decode's last guess, after UTF-8, UTF-16 with BOM and
// GB18030 all failed. The heuristic, in order:
//
//  1. no NUL byte, and no control byte other than tab, LF, CR, form feed,
//     vertical tab and escape (0x7F counts as a control byte);
//  2. at most half of the bytes are 0x80 or above (four always pass, for
//     tiny files): Western European text is mostly ASCII, while binary data
//     and 8-bit Greek or Cyrillic prose are not;
//  3. any byte in 0x80–0x9F means Windows-1252, where those bytes are
//     printable (€, curly quotes, dashes …) while in ISO-8859-1 they are C1
//     controls no text uses; the five bytes Windows-1252 leaves undefined
//     (0x81, 0x8D, 0x8F, 0x90, 0x9D) make the file binary; no byte in that
//     range means ISO-8859-1 (Latin-1), which decodes 0xA0–0xFF like
//     Windows-1252.
//
// Its limits: it cannot tell these encodings from other 8-bit ones that are
// ASCII-compatible too (ISO-8859-15, Windows-1250/1251, KOI8-R, DOS code
// pages, Mac Roman): such files decode without error but show the wrong
// characters, which is why an edit may only add ASCII and characters the file
// already contains, each written as the very byte the file uses for it, so
// the bytes stay right whatever the true encoding is. GB18030 is tried first
// and wins: a short Latin-1 file whose every non-ASCII byte happens to start
// a valid GB18030 sequence with the next byte (such as "f\xfcr") is read as
// GB18030.
func decodeLegacy8Bit(raw []byte) (string, Encoding, bool) {
	high, c1 := 0, false
	for _, c := range raw {
		switch {
		case c >= 0x80:
			high++
			switch c {
			case 0x81, 0x8D, 0x8F, 0x90, 0x9D:
				return "", "", false
			}
			if c < 0xA0 {
				c1 = true
			}
		case c == 0x7F, c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b:
			return "", "", false
		}
	}
	if high > 4 && high > len(raw)/legacyHighShare {
		return "", "", false
	}
	enc := Latin1
	if c1 {
		enc = Windows1252
	}
	cm := legacyCharmap(enc)
	var b strings.Builder
	b.Grow(len(raw) + high)
	for _, c := range raw {
		if c < 0x80 {
			b.WriteByte(c)
		} else {
			b.WriteRune(cm.DecodeByte(c))
		}
	}
	return b.String(), enc, true
}

func legacyCharmap(enc Encoding) *charmap.Charmap {
	if enc == Windows1252 {
		return charmap.Windows1252
	}
	return charmap.ISO8859_1
}

func isLegacy8Bit(enc Encoding) bool { return enc == Latin1 || enc == Windows1252 }

// encodeLegacy8Bit writes text in a legacy 8-bit encoding. A rune the
// charmap cannot represent becomes its replacement byte 0x1A; the Change
// functions refuse such text before it gets here (see checkEncodable).
func encodeLegacy8Bit(enc Encoding, text string) []byte {
	cm := legacyCharmap(enc)
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		b, _ := cm.EncodeRune(r)
		out = append(out, b)
		i += size
	}
	return out
}

// checkEncodable refuses newText when f's encoding is a legacy 8-bit guess
// and newText holds a non-ASCII character that oldText (the file) does not
// contain: whale writes only characters whose byte it has seen in the file.
// name is the file named in the message ("" for "the file"). Other encodings
// take every character, so it returns nil for them.
func checkEncodable(f Format, name, oldText, newText string) error {
	if !isLegacy8Bit(f.Encoding) || newText == oldText {
		return nil
	}
	var inFile [256]bool
	cm := legacyCharmap(f.Encoding)
	for _, r := range oldText {
		if r >= utf8.RuneSelf {
			if b, ok := cm.EncodeRune(r); ok {
				inFile[b] = true
			}
		}
	}
	var missing []rune
	seen := map[rune]bool{}
	for _, r := range newText {
		if r < utf8.RuneSelf || seen[r] {
			continue
		}
		if b, ok := cm.EncodeRune(r); ok && inFile[b] {
			continue
		}
		seen[r] = true
		missing = append(missing, r)
	}
	if len(missing) == 0 {
		return nil
	}
	return errLegacyEncode(f.Encoding, name, missing)
}

func errLegacyEncode(enc Encoding, name string, missing []rune) *Error {
	const show = 5
	var list strings.Builder
	for i, r := range missing {
		if i == show {
			fmt.Fprintf(&list, ", … %d more", len(missing)-show)
			break
		}
		if i > 0 {
			list.WriteString(", ")
		}
		fmt.Fprintf(&list, "\"%c\" %U", r, r)
	}
	if name == "" {
		name = "the file"
	}
	human, iconv := "Latin-1 (ISO-8859-1)", "ISO-8859-1"
	if enc == Windows1252 {
		human, iconv = "Windows-1252", "WINDOWS-1252"
	}
	return newError(CodeEditRejected,
		"%s looks like %s text; this edit would write non-ASCII characters the file does not contain (%s), which whale does not encode into a guessed 8-bit encoding, so nothing was written — keep the new text ASCII (characters the file already has are fine), or convert the file to UTF-8 first with iconv -f %s -t UTF-8",
		name, human, list.String(), iconv)
}

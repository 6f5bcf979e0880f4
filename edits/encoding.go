package edits

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// Encoding names a character encoding a file can be stored in.
type Encoding string

// The encodings Decode recognises.
const (
	UTF8    Encoding = "utf-8"
	UTF16LE Encoding = "utf-16le"
	UTF16BE Encoding = "utf-16be"
	GB18030 Encoding = "gb18030"
	// Latin1 (ISO-8859-1) and Windows1252 are guesses for 8-bit text that
	// is none of the above; an edit may add only ASCII and characters the
	// file already contains (see Decode).
	Latin1      Encoding = "iso-8859-1"
	Windows1252 Encoding = "windows-1252"
)

// Ending is one line's terminator.
type Ending uint8

// Line terminators. EndNone marks text without any line break.
const (
	EndNone Ending = iota
	EndLF
	EndCRLF
	EndCR
)

// String returns the terminator's bytes.
func (e Ending) String() string {
	switch e {
	case EndLF:
		return "\n"
	case EndCRLF:
		return "\r\n"
	case EndCR:
		return "\r"
	}
	return ""
}

// Name returns a short human name ("LF", "CRLF", "CR", "none").
func (e Ending) Name() string {
	switch e {
	case EndLF:
		return "LF"
	case EndCRLF:
		return "CRLF"
	case EndCR:
		return "CR"
	}
	return "none"
}

// Format records how a file's bytes map to LF text, so that Encode can give
// the file back its own line endings, byte-order mark and encoding.
type Format struct {
	Encoding Encoding
	BOM      bool
	// Style is the most common line ending; new lines get it. EndNone means
	// the file had no line break at all (new lines then get LF).
	Style Ending
	// Mixed is true when lines end differently; endings then holds each
	// line's terminator in order.
	Mixed   bool
	endings []Ending
}

// Describe renders the format for a message, e.g. "UTF-8 with BOM, CRLF".
func (f Format) Describe() string {
	var b strings.Builder
	switch f.Encoding {
	case UTF16LE:
		b.WriteString("UTF-16 LE")
	case UTF16BE:
		b.WriteString("UTF-16 BE")
	case GB18030:
		b.WriteString("GB18030")
	case Latin1:
		b.WriteString("ISO-8859-1")
	case Windows1252:
		b.WriteString("Windows-1252")
	default:
		b.WriteString("UTF-8")
	}
	if f.BOM && f.Encoding == UTF8 {
		b.WriteString(" with BOM")
	}
	b.WriteString(", ")
	if f.Mixed {
		b.WriteString("mixed line endings")
	} else {
		b.WriteString(f.Style.Name())
	}
	return b.String()
}

// Decoded is a file's text with every line ending turned into "\n", and the
// Format that turns it back into the file's bytes.
type Decoded struct {
	Text   string
	Format Format
}

// NewFileFormat is the Format of a file that does not exist yet: UTF-8
// without BOM and LF, except .bat and .cmd files, which cmd.exe only parses
// reliably with CRLF. The choice follows the name, not the platform.
func NewFileFormat(name string) Format {
	switch strings.ToLower(path.Ext(strings.ReplaceAll(name, `\`, "/"))) {
	case ".bat", ".cmd":
		return Format{Encoding: UTF8, Style: EndCRLF}
	}
	return Format{Encoding: UTF8, Style: EndLF}
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// Decode turns a file's bytes into LF text. It accepts UTF-8 (with or without
// BOM), UTF-16 LE/BE with BOM, GB18030, and, as a last guess, 8-bit text
// that looks like ISO-8859-1 or Windows-1252 (see decodeLegacy8Bit for the
// heuristic and its limits); it refuses anything else, or text containing
// NUL, with an *Error of code binary_file. For every input it accepts,
// Encode(d.Format, d.Text, d.Text) returns the input unchanged.
func Decode(raw []byte) (Decoded, error) {
	var (
		text string
		f    Format
	)
	switch {
	case bytes.HasPrefix(raw, bomUTF8):
		body := raw[len(bomUTF8):]
		if !utf8.Valid(body) {
			return Decoded{}, errBinary("it starts with a UTF-8 byte-order mark but is not valid UTF-8")
		}
		text, f = string(body), Format{Encoding: UTF8, BOM: true}
	case bytes.HasPrefix(raw, bomUTF16LE), bytes.HasPrefix(raw, bomUTF16BE):
		enc := UTF16LE
		if raw[0] == 0xFE {
			enc = UTF16BE
		}
		t, ok := decodeUTF16(raw[2:], enc == UTF16BE)
		if !ok {
			return Decoded{}, errBinary("it starts with a UTF-16 byte-order mark but is not valid UTF-16")
		}
		text, f = t, Format{Encoding: enc, BOM: true}
	case utf8.Valid(raw):
		text, f = string(raw), Format{Encoding: UTF8}
	default:
		if bytes.IndexByte(raw, 0) >= 0 {
			return Decoded{}, errBinary("it contains NUL bytes")
		}
		if t, ok := decodeGB18030(raw); ok {
			text, f = t, Format{Encoding: GB18030}
			break
		}
		t, enc, ok := decodeLegacy8Bit(raw)
		if !ok {
			return Decoded{}, errBinary("it is neither UTF-8, UTF-16 with a byte-order mark, GB18030, nor text in Latin-1 or Windows-1252")
		}
		text, f = t, Format{Encoding: enc}
	}
	if strings.IndexByte(text, 0) >= 0 {
		return Decoded{}, errBinary("it contains NUL characters")
	}
	text, f.Style, f.Mixed, f.endings = normalizeEndings(text)
	return Decoded{Text: text, Format: f}, nil
}

func errBinary(why string) *Error {
	return newError(CodeBinaryFile, "the file looks binary: %s; it was left untouched, so change it with a shell command if you must", why)
}

func decodeUTF16(b []byte, bigEndian bool) (string, bool) {
	if len(b)%2 != 0 {
		return "", false
	}
	var sb strings.Builder
	sb.Grow(len(b) / 2)
	for i := 0; i < len(b); i += 2 {
		u := unit16(b[i:], bigEndian)
		switch {
		case u >= 0xD800 && u < 0xDC00:
			if i+3 >= len(b) {
				return "", false
			}
			u2 := unit16(b[i+2:], bigEndian)
			if u2 < 0xDC00 || u2 >= 0xE000 {
				return "", false
			}
			sb.WriteRune(utf16.DecodeRune(rune(u), rune(u2)))
			i += 2
		case u >= 0xDC00 && u < 0xE000:
			return "", false
		default:
			sb.WriteRune(rune(u))
		}
	}
	return sb.String(), true
}

func unit16(b []byte, bigEndian bool) uint16 {
	if bigEndian {
		return uint16(b[0])<<8 | uint16(b[1])
	}
	return uint16(b[1])<<8 | uint16(b[0])
}

func encodeUTF16(s string, bigEndian bool) []byte {
	out := make([]byte, 0, 2*len(s)+2)
	put := func(u uint16) {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			put(uint16(r1))
			put(uint16(r2))
		} else {
			put(uint16(r))
		}
	}
	return out
}

// decodeGB18030 accepts raw only when it decodes and re-encodes to the same
// bytes and holds no control characters that text files do not use.
func decodeGB18030(raw []byte) (string, bool) {
	dec, err := simplifiedchinese.GB18030.NewDecoder().Bytes(raw)
	if err != nil {
		return "", false
	}
	for _, c := range dec {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
			return "", false
		}
	}
	back, err := simplifiedchinese.GB18030.NewEncoder().Bytes(dec)
	if err != nil || !bytes.Equal(back, raw) {
		return "", false
	}
	return string(dec), true
}

// normalizeEndings replaces CRLF and lone CR with LF and records what each
// line ended with.
func normalizeEndings(s string) (text string, style Ending, mixed bool, endings []Ending) {
	if strings.IndexByte(s, '\r') < 0 {
		if strings.IndexByte(s, '\n') >= 0 {
			return s, EndLF, false, nil
		}
		return s, EndNone, false, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	var counts [4]int
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], "\r\n")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		b.WriteByte('\n')
		i += j
		e := EndLF
		if s[i] == '\r' {
			if i+1 < len(s) && s[i+1] == '\n' {
				e = EndCRLF
				i++
			} else {
				e = EndCR
			}
		}
		i++
		counts[e]++
		endings = append(endings, e)
	}
	style = EndLF
	for _, e := range []Ending{EndCRLF, EndCR} {
		if counts[e] > counts[style] {
			style = e
		}
	}
	kinds := 0
	for _, c := range counts[1:] {
		if c > 0 {
			kinds++
		}
	}
	if kinds <= 1 {
		endings = nil
	}
	return b.String(), style, kinds > 1, endings
}

// Encode turns newText (LF line breaks) back into bytes in f's encoding, BOM
// and line endings. oldText must be the text f was decoded with: for a file
// with mixed endings, new and old lines are aligned, lines present in both
// keep their own ending, and changed lines take the ending of the lines they
// replace (or f.Style). Encode(f, t, t) returns the original bytes.
// In ISO-8859-1 and Windows-1252, a character the encoding lacks is written
// as the byte 0x1A; PlanEdits, PlanWrite and PlanPatch refuse such text, and
// every non-ASCII character the file does not already contain, before they
// encode.
func Encode(f Format, oldText, newText string) []byte {
	return encodeOrigins(f, oldText, newText, nil)
}

// encodeApplied is Encode for a result of the matcher, which knows which
// old line each new line is (see lineOrigins).
func encodeApplied(f Format, oldText string, a Applied) []byte {
	origin, _ := a.origins()
	return encodeOrigins(f, oldText, a.Text, origin)
}

// encodeOrigins is Encode with the new text's line origins, when known.
func encodeOrigins(f Format, oldText, newText string, origin []int) []byte {
	var text string
	switch {
	case f.Mixed:
		text = restoreMixed(f, oldText, newText, origin)
	case f.Style == EndCRLF || f.Style == EndCR:
		text = strings.ReplaceAll(newText, "\n", f.Style.String())
	default:
		text = newText
	}
	var out []byte
	switch f.Encoding {
	case UTF16LE, UTF16BE:
		big := f.Encoding == UTF16BE
		out = encodeUTF16(text, big)
		if f.BOM {
			bom := bomUTF16LE
			if big {
				bom = bomUTF16BE
			}
			out = append(append([]byte{}, bom...), out...)
		}
		return out
	case GB18030:
		out, err := simplifiedchinese.GB18030.NewEncoder().Bytes([]byte(text))
		if err != nil {
			// GB18030 maps all of Unicode; only invalid UTF-8 fails, and
			// Go strings from JSON are valid. Keep the bytes rather than lose them.
			return []byte(text)
		}
		return out
	case Latin1, Windows1252:
		return encodeLegacy8Bit(f.Encoding, text)
	}
	if f.BOM {
		out = make([]byte, 0, len(bomUTF8)+len(text))
		out = append(append(out, bomUTF8...), text...)
		return out
	}
	return []byte(text)
}

// restoreMixed gives each line break of newText an ending: the old line's
// own ending where the line is unchanged, else the most common ending among
// the lines the change replaced, else the file's Style. origin, when it has
// one entry per line of newText, says which old line each one is;
// otherwise the texts are aligned.
func restoreMixed(f Format, oldText, newText string, origin []int) string {
	endOf := func(i int) Ending {
		if i < len(f.endings) {
			return f.endings[i]
		}
		return f.Style
	}
	fillOf := func(a0, a1 int) Ending {
		fill := f.Style
		var counts [4]int
		for i := a0; i < a1; i++ {
			counts[endOf(i)]++
		}
		for e, c := range counts {
			if c > counts[fill] {
				fill = Ending(e)
			}
		}
		return fill
	}
	var newEnd []Ending
	switch {
	case oldText == newText:
		newEnd = f.endings
	case origin != nil && len(origin) == len(slices.Collect(strings.Lines(newText))):
		newEnd = make([]Ending, len(origin))
		prev := -1 // the old line the last kept line is
		for i := 0; i < len(origin); {
			if origin[i] >= 0 {
				newEnd[i], prev = endOf(origin[i]), origin[i]
				i++
				continue
			}
			j := i
			for j < len(origin) && origin[j] < 0 {
				j++
			}
			next := len(f.endings)
			if j < len(origin) {
				next = origin[j]
			}
			fill := fillOf(prev+1, max(next, prev+1))
			for ; i < j; i++ {
				newEnd[i] = fill
			}
		}
	default:
		a, b := slices.Collect(strings.Lines(oldText)), slices.Collect(strings.Lines(newText))
		newEnd = make([]Ending, 0, len(b))
		ai, bi := 0, 0
		for _, h := range append(diffLines(a, b), hunk{len(a), len(a), len(b), len(b)}) {
			for ; bi < h.B0; ai, bi = ai+1, bi+1 {
				newEnd = append(newEnd, endOf(ai))
			}
			fill := fillOf(h.A0, h.A1)
			for ; bi < h.B1; bi++ {
				newEnd = append(newEnd, fill)
			}
			ai = h.A1
		}
	}
	ending := func(line int) Ending {
		e := f.Style
		if line < len(newEnd) {
			e = newEnd[line]
		}
		if e == EndNone {
			e = EndLF
		}
		return e
	}
	var sb strings.Builder
	sb.Grow(len(newText) + len(newEnd))
	line := 0
	for s := newText; ; line++ {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			sb.WriteString(s)
			break
		}
		sb.WriteString(s[:i])
		e := ending(line)
		s = s[i+1:]
		if e == EndCR && strings.HasPrefix(s, "\n") && ending(line+1) == EndLF {
			// A lone CR before an empty LF line would read back as one
			// CRLF break and merge the two lines: this line keeps its CR
			// and gains the LF.
			e = EndCRLF
		}
		sb.WriteString(e.String())
	}
	return sb.String()
}

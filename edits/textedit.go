package edits

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a text: Line is 0-based, and lines end at "\r\n",
// "\r" or "\n" as in LSP; Col is a byte offset into that line.
type Pos struct{ Line, Col int }

// TextEdit replaces the range [Start, End) of the old text with NewText.
// The tool contract has the same shape (toolbridge.TextEdit); catalog
// converts between them, so neither package imports the other.
type TextEdit struct {
	Start, End Pos
	NewText    string
}

// MinimalEdits returns edits that turn oldText into newText while touching
// as little as possible: only the lines that changed, and within a changed
// line only the bytes between the common start and the common end. Ranges
// never split a UTF-8 character or a "\r\n". The edits are sorted and do not
// overlap; applied to oldText together they give newText.
func MinimalEdits(oldText, newText string) []TextEdit {
	if oldText == newText {
		return nil
	}
	a, b := splitTerminated(oldText), splitTerminated(newText)
	starts := make([]int, len(a)+1)
	for i, l := range a {
		starts[i+1] = starts[i] + len(l)
	}
	var out []TextEdit
	add := func(oldStart int, o, n string) {
		p, q := commonEnds(o, n)
		if p == len(o) && p == len(n) {
			return
		}
		out = append(out, TextEdit{
			Start:   posAt(a, starts, oldStart+p),
			End:     posAt(a, starts, oldStart+len(o)-q),
			NewText: n[p : len(n)-q],
		})
	}
	for _, h := range diffLines(a, b) {
		if h.A1-h.A0 == h.B1-h.B0 {
			for k := 0; k < h.A1-h.A0; k++ {
				add(starts[h.A0+k], a[h.A0+k], b[h.B0+k])
			}
			continue
		}
		add(starts[h.A0], strings.Join(a[h.A0:h.A1], ""), strings.Join(b[h.B0:h.B1], ""))
	}
	return out
}

// commonEnds returns the lengths of the common prefix and suffix of o and n
// that do not overlap, end on UTF-8 character boundaries, and do not split
// "\r\n".
func commonEnds(o, n string) (p, q int) {
	m := min(len(o), len(n))
	for p < m && o[p] == n[p] {
		p++
	}
	for p > 0 && ((p < len(o) && !utf8.RuneStart(o[p])) || (p < len(n) && !utf8.RuneStart(n[p])) || (o[p-1] == '\r' && p < len(o) && o[p] == '\n') || (n[p-1] == '\r' && p < len(n) && n[p] == '\n')) {
		p--
	}
	m -= p
	for q < m && o[len(o)-1-q] == n[len(n)-1-q] {
		q++
	}
	for q > 0 {
		eo, en := len(o)-q, len(n)-q
		if !utf8.RuneStart(o[eo]) || !utf8.RuneStart(n[en]) ||
			(eo > 0 && o[eo-1] == '\r' && o[eo] == '\n') || (en > 0 && n[en-1] == '\r' && n[en] == '\n') {
			q--
			continue
		}
		break
	}
	return p, q
}

// posAt converts a byte offset of the old text into a Pos.
func posAt(lines []string, starts []int, off int) Pos {
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	if i >= len(lines) {
		// The end of the text: past the last line's terminator.
		if len(lines) == 0 {
			return Pos{}
		}
		last := lines[len(lines)-1]
		if strings.HasSuffix(last, "\n") || strings.HasSuffix(last, "\r") {
			return Pos{Line: len(lines), Col: 0}
		}
		return Pos{Line: len(lines) - 1, Col: len(last)}
	}
	return Pos{Line: i, Col: off - starts[i]}
}

// splitTerminated splits text into lines that keep their terminator, where
// "\r\n", "\r" and "\n" each end a line.
func splitTerminated(s string) []string {
	var lines []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			lines = append(lines, s)
			break
		}
		end := i + 1
		if s[i] == '\r' && end < len(s) && s[end] == '\n' {
			end++
		}
		lines = append(lines, s[:end])
		s = s[end:]
	}
	return lines
}

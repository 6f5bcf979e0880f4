package edits

import (
	"fmt"
	"strings"
)

// anchorLine is a line of a text an @@ anchor matched: its start and the
// offset just after its line break (the end of the text for a last line
// without one).
type anchorLine struct{ start, next int }

// findAnchorLines returns every line starting at or after byte from that an
// @@ anchor matches, in tiers, each only when the ones before it find none:
// lines whose text equals the anchor once surrounding blanks are ignored,
// then lines that start with it (git's section headings are cut-off
// lines), then the same two with typographic look-alikes folded to ASCII
// on both sides (a model's ASCII copy of a line with curly quotes). The
// work is one pass over text[from:] a tier.
func findAnchorLines(text string, from int, anchor string) []anchorLine {
	anchor = strings.TrimSpace(anchor)
	if out := anchorLinesBy(text, from, anchor, strings.TrimSpace); len(out) > 0 || !mayHaveTypography(text[from:]) && !mayHaveTypography(anchor) {
		return out
	}
	fold := func(s string) string {
		f, _, _ := normalizeTypography(strings.TrimSpace(s), false)
		return f
	}
	return anchorLinesBy(text, from, fold(anchor), fold)
}

// anchorLinesBy is one pair of findAnchorLines's tiers, comparing each line
// as norm makes it.
func anchorLinesBy(text string, from int, anchor string, norm func(string) string) []anchorLine {
	for _, prefix := range []bool{false, true} {
		var out []anchorLine
		for pos := lineStartAtOrAfter(text, from); pos < len(text); {
			end := strings.IndexByte(text[pos:], '\n')
			next := len(text)
			if end < 0 {
				end = len(text)
			} else {
				end += pos
				next = end + 1
			}
			t := norm(text[pos:end])
			if t == anchor || prefix && strings.HasPrefix(t, anchor) {
				out = append(out, anchorLine{pos, next})
			}
			pos = next
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// anchorNotUnique is the search_not_unique error of a chunk of only added
// lines whose @@ line matches several lines: the chunk would go right after
// it, and nothing else says which.
func anchorNotUnique(text, anchor string, found []anchorLine) *Error {
	spans := make([]candidate, len(found))
	for k, a := range found {
		spans[k] = candidate{span: span{a.start, a.next}}
	}
	lines := linesOf(text, spans)
	return &Error{
		Code:  CodeSearchNotUnique,
		Lines: lines,
		Message: fmt.Sprintf("the @@ line %s matches %d lines (lines %s), and a chunk of only added lines goes right after it; add a context line (' ') from the file above or below the new lines, or put an @@ line for the enclosing class or function before it",
			visible(anchor), len(found), formatLines(lines)),
	}
}

// anchorRegion names the region an @@ line is searched in, for messages:
// the whole file, or the part after from, the end of the previous chunk or
// (nested) of the chunk's previous @@ line.
func anchorRegion(text string, from int, nested bool) string {
	switch {
	case nested:
		return fmt.Sprintf("the file after line %d, the chunk's previous @@ line", lineOf(text, from-1))
	case from > 0:
		return fmt.Sprintf("the file after line %d, where the previous chunk ended", lineOf(text, from-1))
	}
	return "the file"
}

// lineStartAtOrAfter returns the first line start at or after byte off.
func lineStartAtOrAfter(text string, off int) int {
	if off == 0 || off >= len(text) || text[off-1] == '\n' {
		return off
	}
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(text)
}

// anchorNotFound is the search_not_found error of an @@ line that matches no
// line at or after from; nested says from is the end of the chunk's previous
// @@ line rather than of the previous chunk.
func anchorNotFound(text string, from int, anchor string, nested bool) *Error {
	msg := fmt.Sprintf("the @@ line %s matches no line of %s", visible(anchor), anchorRegion(text, from, nested))
	if from > 0 {
		if all := findAnchorLines(text, 0, anchor); len(all) > 0 && all[0].start < from {
			msg += fmt.Sprintf(" (it matches line %d, before that: put @@ lines and chunks in the order their lines appear in the file)", lineOf(text, all[0].start))
		}
	}
	return newError(CodeSearchNotFound, "%s; copy that line exactly from the file, or leave the @@ line bare", msg)
}

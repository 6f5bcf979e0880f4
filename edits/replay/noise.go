package replay

import (
	"strings"

	"github.com/whale-ls/whale-ls/edits"
)

// noise is a change a model makes to its copy of a file's lines. Each is
// applied only where the intended bytes can still be told from the copy:
// a noisy copy that turns a removed line into an added one, or that lands
// on another place of the file exactly, is not generated.
type noise struct {
	name string
	// patch: the noise is generated for "*** Begin Patch" chunks too.
	patch bool
	apply func([]hunk) ([]hunk, bool)
}

var noises = []noise{
	{name: "indent_shift", patch: true, apply: indentShift},
	{name: "tabs_to_spaces", patch: true, apply: tabsToSpaces},
	{name: "trailing_ws", patch: true, apply: trailingWhitespace},
	{name: "typography", patch: false, apply: typography},
}

// indentShift removes the indentation every line of the hunks shares, or,
// when they share none, indents every line by two spaces more.
func indentShift(hs []hunk) ([]hunk, bool) {
	prefix, first := "", true
	for _, h := range hs {
		for _, l := range h.lines {
			if strings.TrimSpace(l.text) == "" {
				continue
			}
			ind := l.text[:len(l.text)-len(strings.TrimLeft(l.text, " \t"))]
			if first {
				prefix, first = ind, false
				continue
			}
			for !strings.HasPrefix(ind, prefix) {
				prefix = prefix[:len(prefix)-1]
			}
		}
	}
	if first {
		return nil, false
	}
	fn := func(_ byte, t string) string {
		if strings.TrimSpace(t) == "" {
			return t
		}
		if prefix != "" {
			return t[len(prefix):]
		}
		return "  " + t
	}
	return mapHunks(hs, fn)
}

// tabsToSpaces writes each leading tab as four spaces, in hunks indented
// with tabs only (a mix at one level could not be told apart again).
func tabsToSpaces(hs []hunk) ([]hunk, bool) {
	tabs := false
	for _, h := range hs {
		for _, l := range h.lines {
			ind := l.text[:len(l.text)-len(strings.TrimLeft(l.text, " \t"))]
			if strings.Contains(ind, " ") {
				return nil, false
			}
			tabs = tabs || ind != ""
		}
	}
	if !tabs {
		return nil, false
	}
	return mapHunks(hs, func(_ byte, t string) string {
		rest := strings.TrimLeft(t, "\t")
		return strings.Repeat("    ", len(t)-len(rest)) + rest
	})
}

// trailingWhitespace drops the trailing blanks of the lines the model
// copied (context and removed lines); the lines it adds are its own. Only
// where a line that keeps its trailing blanks is the only one with its
// text, so that no alignment can give them to another line.
func trailingWhitespace(hs []hunk) ([]hunk, bool) {
	some := false
	for _, h := range hs {
		seen := map[string]int{}
		for _, l := range h.lines {
			seen[strings.TrimRight(l.text, " \t")]++
		}
		for _, l := range h.lines {
			if l.kind != '+' && strings.TrimRight(l.text, " \t") != l.text {
				some = true
				if seen[strings.TrimRight(l.text, " \t")] > 1 {
					return nil, false
				}
			}
		}
	}
	if !some {
		return nil, false
	}
	return mapHunks(hs, func(kind byte, t string) string {
		if kind == '+' {
			return t
		}
		return strings.TrimRight(t, " \t")
	})
}

// typography writes the file's typographic look-alikes (curly quotes,
// dashes, no-break spaces, the ellipsis) as ASCII in the lines the model
// copied. A changed line is written in ASCII too when the look-alikes of
// both it and the line it replaces lie where the two lines agree (so the
// change itself did not touch one); otherwise the case is not generated.
func typography(hs []hunk) ([]hunk, bool) {
	some := false
	out := make([]hunk, len(hs))
	for k, h := range hs {
		out[k] = h
		out[k].lines = append([]diffLine(nil), h.lines...)
		lines := out[k].lines
		for i := 0; i < len(lines); {
			if lines[i].kind == ' ' {
				a := asciiTypography(lines[i].text)
				some = some || a != lines[i].text
				lines[i].text = a
				i++
				continue
			}
			// A block of removed lines, then added ones: the k-th added
			// line replaces the k-th removed one.
			var rem, add []int
			for ; i < len(lines) && lines[i].kind == '-'; i++ {
				rem = append(rem, i)
			}
			for ; i < len(lines) && lines[i].kind == '+'; i++ {
				add = append(add, i)
			}
			for j, ai := range add {
				if !hasTypography(lines[ai].text) {
					continue
				}
				if j >= len(rem) || !typographyOnlyWhereEqual(lines[rem[j]].text, lines[ai].text) {
					return nil, false
				}
				lines[ai].text = asciiTypography(lines[ai].text)
			}
			for j, ri := range rem {
				if hasTypography(lines[ri].text) && j < len(add) && !typographyOnlyWhereEqual(lines[ri].text, lines[add[j]].text) {
					return nil, false
				}
				a := asciiTypography(lines[ri].text)
				some = some || a != lines[ri].text
				lines[ri].text = a
			}
		}
	}
	if !some || !changesKept(hs, out) {
		return nil, false
	}
	return out, true
}

// typographyOnlyWhereEqual reports whether every look-alike of a and of b
// lies in the common prefix or suffix of the two lines.
func typographyOnlyWhereEqual(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	p, s := sameEnds(ra, rb)
	return !hasTypography(string(ra[p:len(ra)-s])) && !hasTypography(string(rb[p:len(rb)-s]))
}

// sameEnds returns the lengths of the common prefix of a and b and of
// their common suffix in what is left after it.
func sameEnds[T comparable](a, b []T) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// mapHunks applies fn to every line and keeps the result only when the
// noise left every removed line different from every added line of its
// hunk (else the copy no longer says which lines change).
func mapHunks(hs []hunk, fn func(kind byte, text string) string) ([]hunk, bool) {
	out := make([]hunk, len(hs))
	for k, h := range hs {
		out[k] = h.mapLines(fn)
	}
	if !changesKept(hs, out) {
		return nil, false
	}
	return out, true
}

func changesKept(before, after []hunk) bool {
	for k, h := range after {
		removed := map[string]bool{}
		for _, l := range h.lines {
			if l.kind == '-' {
				removed[l.text] = true
			}
		}
		for _, l := range h.lines {
			if l.kind == '+' && removed[l.text] {
				return false
			}
		}
		// And no noise may make a changed line equal to what it was.
		if h.side(true) == h.side(false) && before[k].side(true) != before[k].side(false) {
			return false
		}
		// Noise in the lines a model writes, where its copy of the file
		// is exact, is its own choice, not noise: the tools write it.
		if h.side(false) != before[k].side(false) && h.side(true) == before[k].side(true) {
			return false
		}
	}
	return true
}

func hasTypography(s string) bool {
	_, changed := edits.ASCIITypography(s)
	return changed
}

func asciiTypography(s string) string {
	a, _ := edits.ASCIITypography(s)
	return a
}

package edits

import (
	"slices"
	"sort"
	"strings"
)

// Line origins: which line of the old text each line of a new text is.
// A file with mixed line endings gives every line break the ending of the
// line it comes from, so that must be known exactly: aligning the old and
// new texts afterwards cannot tell which of two equal lines an edit removed
// (`-same` then ` same` over "same\r\nsame\n" removes the first and keeps
// the second's ending). The matcher knows: lines outside the places it
// replaced are the old lines, and inside a place the pairing of search and
// replacement lines (a patch's context lines) says which ones stayed.

// lineOrigins returns, for each line of the text that replacing cands
// (sorted, non-overlapping) in text with written builds, the index of the
// line of text it is, or -1 for a changed or added line. Inside a place
// that covers whole lines the candidate's line pairing decides; inside one
// that does not, the place's old and new lines are aligned.
func lineOrigins(text string, cands []candidate, written []string) []int {
	var origin []int
	starts := lineStarts(text)
	// lineAt is the index of the line holding byte off (the count of
	// line breaks before it).
	lineAt := func(off int) int {
		n := sort.SearchInts(starts, off+1)
		if off == len(text) && off > 0 && text[off-1] == '\n' {
			n++ // past the final line break: the line after the last
		}
		return max(n-1, 0)
	}
	atLineStart := func(off int) bool { return off == 0 || text[off-1] == '\n' }
	// span returns the old lines [a0, a1) a place touches; an empty place
	// between two lines touches none.
	span := func(c candidate) (int, int) {
		a0, a1 := lineAt(c.start), lineAt(c.end)
		if !atLineStart(c.end) || c.end == c.start && !atLineStart(c.start) {
			a1++
		}
		return a0, a1
	}
	next := 0 // the first old line not yet mapped
	for k := 0; k < len(cands); {
		// A region is a run of whole old lines holding one or more places
		// (several when they share a line).
		c := cands[k]
		a0, a1 := span(c)
		k2 := k + 1
		for ; k2 < len(cands); k2++ {
			b0, b1 := span(cands[k2])
			if b0 >= a1 {
				break
			}
			a1 = max(a1, b1)
		}
		for ; next < a0; next++ {
			origin = append(origin, next)
		}
		regionStart, regionEnd := lineOffset(starts, a0, len(text)), lineOffset(starts, a1, len(text))
		var nb strings.Builder
		pos := regionStart
		for i := k; i < k2; i++ {
			nb.WriteString(text[pos:cands[i].start])
			nb.WriteString(written[i])
			pos = cands[i].end
		}
		nb.WriteString(text[pos:regionEnd])
		oldLines, newLines := slices.Collect(strings.Lines(text[regionStart:regionEnd])), slices.Collect(strings.Lines(nb.String()))
		if k2 == k+1 && c.fit != nil && c.start == regionStart && c.end == regionEnd && len(c.fit.same) == len(newLines) && len(c.fit.searchLines) == len(oldLines) {
			for _, j := range c.fit.same {
				if j >= 0 {
					origin = append(origin, a0+j)
				} else {
					origin = append(origin, -1)
				}
			}
		} else {
			origin = append(origin, alignOrigins(oldLines, newLines, a0)...)
		}
		next = a1
		k = k2
	}
	for ; next < len(starts); next++ {
		origin = append(origin, next)
	}
	return origin
}

// alignOrigins pairs the new lines of a region with its old lines (the
// first of which is old line base) by aligning them.
func alignOrigins(oldLines, newLines []string, base int) []int {
	out := make([]int, 0, len(newLines))
	a, b := 0, 0
	for _, h := range diffLines(oldLines, newLines) {
		for ; b < h.B0; a, b = a+1, b+1 {
			out = append(out, base+a)
		}
		for ; b < h.B1; b++ {
			out = append(out, -1)
		}
		a = h.A1
	}
	for ; b < len(newLines); a, b = a+1, b+1 {
		out = append(out, base+a)
	}
	return out
}

// lineStarts returns the offset of each line of text (a final line break
// starts no line).
func lineStarts(text string) []int {
	if text == "" {
		return nil
	}
	starts := []int{0}
	for i := 0; i < len(text)-1; i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOffset is the offset of line n, or end past the last line.
func lineOffset(starts []int, n, end int) int {
	if n < len(starts) {
		return starts[n]
	}
	return end
}

// track records one step's line origins in res: the lines of the text it
// built, mapped to the lines of the text before every step. A step whose
// origins are unknown (nil) makes them unknown for good, and Encode then
// aligns the texts instead.
func (res *Applied) track(step []int) {
	switch {
	case res.originLost:
	case step == nil:
		res.origin, res.originLost = nil, true
	case res.origin == nil:
		res.origin = step
	default:
		out := make([]int, len(step))
		for i, j := range step {
			out[i] = -1
			if j >= 0 && j < len(res.origin) {
				out[i] = res.origin[j]
			}
		}
		res.origin = out
	}
}

// origins returns the line origins of res.Text, or nil when they are
// unknown; ok is false then.
func (res Applied) origins() ([]int, bool) {
	if res.originLost || res.origin == nil {
		return nil, false
	}
	if len(res.origin) != len(lineStarts(res.Text)) {
		return nil, false
	}
	return res.origin, true
}

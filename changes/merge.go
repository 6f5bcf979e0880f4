package changes

import (
	"bytes"
	"slices"

	"github.com/whale-ls/whale-ls/edits"
)

// Conflict is a region that both sides of a three-way merge changed in
// different ways.
type Conflict struct {
	// Line is the 1-based line of ours where the region starts (for an
	// empty region, the line before which it sits).
	Line int
	// Base, Theirs and Ours are the region's text in each version, with
	// their own line endings.
	Base, Theirs, Ours []byte
}

// Merge3 merges two descendants of base line by line, as diff3 does: a
// region only one side changed takes that side's text; a region both sides
// changed the same way takes it once; a region both changed differently is a
// Conflict, and merged then holds ours there. Regions conflict when their
// base line ranges overlap, or when one is an insertion at the edge of (or
// inside) the other; two changes that only touch (one ends on the line
// before the other begins) both apply.
//
// Lines keep their own terminators ("\n", "\r\n", or none on a last line
// without one), so merged is byte-exact: when ours equals base it equals
// theirs, and when theirs equals base it equals ours. Lines are aligned by
// edits.LineDiff: texts whose alignment exceeds its work budget (typically
// thousands of lines differing) are aligned coarsely, which can report a
// conflict a finer alignment would not, never a wrong merge.
func Merge3(base, theirs, ours []byte) (merged []byte, conflicts []Conflict) {
	b, t, o := slices.Collect(bytes.Lines(base)), slices.Collect(bytes.Lines(theirs)), slices.Collect(bytes.Lines(ours))
	ht, ho := diffLines(b, t), diffLines(b, o)
	var out bytes.Buffer
	out.Grow(max(len(ours), len(theirs)))
	pos := 0 // next base line to copy
	i, j := 0, 0
	for i < len(ht) || j < len(ho) {
		var g0, g1 int
		if j >= len(ho) || i < len(ht) && ht[i].a0 <= ho[j].a0 {
			g0, g1 = ht[i].a0, ht[i].a1
		} else {
			g0, g1 = ho[j].a0, ho[j].a1
		}
		ti, oj := i, j
		for {
			switch {
			case ti < len(ht) && touches(ht[ti], g0, g1):
				g1 = max(g1, ht[ti].a1)
				ti++
			case oj < len(ho) && touches(ho[oj], g0, g1):
				g1 = max(g1, ho[oj].a1)
				oj++
			default:
				goto grouped
			}
		}
	grouped:
		writeLines(&out, b[pos:g0])
		switch {
		case oj == j:
			writeRegion(&out, b, t, ht[i:ti], g0, g1)
		case ti == i:
			writeRegion(&out, b, o, ho[j:oj], g0, g1)
		default:
			var vt, vo bytes.Buffer
			writeRegion(&vt, b, t, ht[i:ti], g0, g1)
			writeRegion(&vo, b, o, ho[j:oj], g0, g1)
			if !bytes.Equal(vt.Bytes(), vo.Bytes()) {
				first := ho[j]
				var vb bytes.Buffer
				writeLines(&vb, b[g0:g1])
				conflicts = append(conflicts, Conflict{
					Line:   first.b0 - (first.a0 - g0) + 1,
					Base:   vb.Bytes(),
					Theirs: vt.Bytes(),
					Ours:   vo.Bytes(),
				})
			}
			out.Write(vo.Bytes())
		}
		pos, i, j = g1, ti, oj
	}
	writeLines(&out, b[pos:])
	return out.Bytes(), conflicts
}

// hunk replaces the lines [a0, a1) of a text with the lines [b0, b1) of
// another. A diff is a list of hunks in order, with at least one equal line
// between two hunks.
type hunk struct{ a0, a1, b0, b1 int }

// diffLines aligns two lists of lines with edits.LineDiff and returns the
// replaced blocks.
func diffLines(a, b [][]byte) []hunk {
	as, bs := make([]string, len(a)), make([]string, len(b))
	for i, l := range a {
		as[i] = string(l)
	}
	for i, l := range b {
		bs[i] = string(l)
	}
	var hs []hunk
	edits.LineDiff(as, bs, func(a0, a1, b0, b1 int) { hs = append(hs, hunk{a0, a1, b0, b1}) })
	return hs
}

// touches reports whether hunk h must be merged together with the base
// region [g0, g1): their ranges overlap, or one of them is an insertion
// that lies inside or at an edge of the other.
func touches(h hunk, g0, g1 int) bool {
	if h.a0 < g1 && g0 < h.a1 {
		return true
	}
	if h.a0 == h.a1 && h.a0 >= g0 && h.a0 <= g1 {
		return true
	}
	return g0 == g1 && g0 >= h.a0 && g0 <= h.a1
}

// writeRegion writes base lines [g0, g1) as side changed them: hs are that
// side's hunks inside the region, in order.
func writeRegion(w *bytes.Buffer, base, side [][]byte, hs []hunk, g0, g1 int) {
	c := g0
	for _, h := range hs {
		writeLines(w, base[c:h.a0])
		writeLines(w, side[h.b0:h.b1])
		c = h.a1
	}
	writeLines(w, base[c:g1])
}

func writeLines(w *bytes.Buffer, lines [][]byte) {
	for _, l := range lines {
		w.Write(l)
	}
}

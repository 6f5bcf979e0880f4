package edits

import (
	"fmt"
	"sort"
	"strings"
)

// Repairs a patch may report when something other than the text of a hunk
// chose where it goes.
const (
	// RepairLineHintChose: a hunk's old side matched several places at the
	// first tier that matched at all, and the line number of its @@ header
	// (moved by the hunks before it) chose the one clearly nearest to it.
	RepairLineHintChose = "line_hint"
	// RepairAnchorScoped: a "*** Begin Patch" chunk, or its @@ anchor line,
	// matched several places in the whole file but only one in the region
	// the format searches: after the chunk's @@ anchor line and after the
	// previous chunk of the same file.
	RepairAnchorScoped = "anchor_scoped"
	// RepairAnchorNearest: a "*** Begin Patch" chunk's old side matched
	// several places after its @@ anchor and the first, clearly the
	// nearest to the anchor, was chosen (see chooseNearAnchor).
	RepairAnchorNearest = "anchor_nearest"
)

// The line-hint rule. A hunk whose old side matches several places names,
// in its @@ header, the line it starts at in the file its author saw. The
// hint is that line moved the way GNU patch moves it: by the offset at which
// the previous hunk was found (where it landed minus where its own header
// said, in the text as edited so far) plus the lines the previous hunks
// added or removed. It chooses a candidate only when
//
//   - the candidates are those of the first tier that matched at all (a
//     hint never reaches for a more tolerant tier, nor prefers an exact match
//     to a tolerant one), and
//   - one candidate's start line is clearly nearest to the hinted line: every
//     other candidate starts more than twice as far from it. A hint that
//     points at a candidate exactly (distance 0) always chooses; one that is
//     equally near two, or nearly so (lines 10 and 13 for a hint of 11), chooses
//     none, and the hunk is refused with every candidate's line.
//
// hintMargin is the factor of that rule.
const hintMargin = 2

// lineHints tracks how far the hunks placed so far have moved the lines
// after them, so that a later hunk's header line can be turned into a line
// of the text as edited so far.
type lineHints struct {
	shift int
}

// expect returns the line of the current text a hunk whose header names
// line hint is expected at, or 0 when the hunk names none.
func (lh *lineHints) expect(hint int) int {
	if hint <= 0 {
		return 0
	}
	if e := hint + lh.shift; e > 0 {
		return e
	}
	return 1
}

// placed records that a hunk whose header names line hint (0: none) was
// placed starting at line at of the text it saw, changing the number of
// lines by added. A hunk without a hint, or a pure insertion (placed by its
// hint alone, so it carries no new offset), moves later lines by added only.
func (lh *lineHints) placed(hint, at, added int, byText bool) {
	if hint > 0 && byText {
		lh.shift = at - hint
	}
	lh.shift += added
}

// addedLines is the change in the number of lines when c replaces its span
// of text.
func addedLines(text string, c candidate) int {
	return strings.Count(c.replace, "\n") - strings.Count(text[c.start:c.end], "\n")
}

// hintChoice is what the line hint made of several candidates: the one it
// chose, or why it chose none, as a phrase for the refusal.
type hintChoice struct {
	pick   candidate
	ok     bool
	reason string
}

// chooseByHint applies the line-hint rule to cands, which all come from the
// first tier that matched. hint is the line the hunk's header names (0:
// none), want that line moved by the hunks before it (lineHints.expect), and
// source says where the hint came from, for messages ("its @@ header").
func chooseByHint(text string, cands []candidate, hint, want int, source string) hintChoice {
	if hint <= 0 || want <= 0 {
		return hintChoice{reason: source + " gives no line number to choose by"}
	}
	points := fmt.Sprintf("%s points at line %d", source, want)
	if hint != want {
		points += fmt.Sprintf(" (its line %d, moved by the hunks before it)", hint)
	}
	if len(cands) == 0 {
		return hintChoice{reason: "nothing matched"}
	}
	sorted := nonOverlappingSorted(cands)
	lines := linesOf(text, sorted)
	order := make([]int, len(sorted))
	for k := range order {
		order[k] = k
	}
	dist := func(k int) int {
		if d := lines[k] - want; d >= 0 {
			return d
		}
		return want - lines[k]
	}
	sort.SliceStable(order, func(a, b int) bool { return dist(order[a]) < dist(order[b]) })
	if len(order) < 2 {
		return hintChoice{pick: sorted[order[0]], ok: true}
	}
	best, next := order[0], order[1]
	d1, d2 := dist(best), dist(next)
	switch {
	case d1 == d2:
		return hintChoice{reason: fmt.Sprintf("%s, as near line %d as line %d, so it chooses neither", points, min(lines[best], lines[next]), max(lines[best], lines[next]))}
	case d2 <= hintMargin*d1:
		return hintChoice{reason: fmt.Sprintf("%s, %d lines from line %d and %d from line %d, not clearly nearer either (a line number chooses a place only when every other is more than %d times as far from it)", points, d1, lines[best], d2, lines[next], hintMargin)}
	}
	return hintChoice{pick: sorted[best], ok: true}
}

// placedHunk is one hunk as Apply placed it, reported to a trace (tests use
// it to check that only the chosen span changed): the text it saw, the
// region of that text searched, every candidate of the first tier that
// matched there (none for a pure insertion), the line the hint expected (0:
// none), the span replaced and the rule that chose it among several
// (RepairLineHintChose, or "" when it was the only one).
type placedHunk struct {
	before string
	from   int
	cands  []candidate
	want   int
	pick   candidate
	rule   string
	// anchors are the lines a chunk's last @@ anchor matched (nil without).
	anchors []anchorLine
	// keep is the hunk's own pairing of its lines (see patchHunk.keep).
	keep []int
}

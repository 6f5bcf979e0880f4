package edits

import (
	"strings"
	"testing"
)

// TestChooseByHint: the hint chooses only a candidate clearly nearest to
// it; a tie, a near tie or no hint chooses none and says why.
func TestChooseByHint(t *testing.T) {
	t.Parallel()
	// "x" starts lines 2, 5, 12 and 13.
	text := "a\nx\nb\nc\nx\nd\ne\nf\ng\nh\ni\nx\nx\n"
	var cands []candidate
	for pos := 0; ; {
		i := strings.Index(text[pos:], "x\n")
		if i < 0 {
			break
		}
		cands = append(cands, candidate{span: span{pos + i, pos + i + 2}})
		pos += i + 2
	}
	for _, tc := range []struct {
		hint, want int
		line       int    // the chosen line, 0 for none
		reason     string // part of the reason when none
	}{
		{hint: 2, want: 2, line: 2},
		{hint: 5, want: 5, line: 5},
		{hint: 1, want: 1, line: 2},                      // 1 from 2, 4 from 5
		{hint: 7, want: 7, line: 5},                      // 2 from 5, 5 from 2 and 12
		{hint: 3, want: 3, reason: "not clearly nearer"}, // 1 from 2, 2 from 5
		{hint: 9, want: 9, reason: "not clearly nearer"}, // 3 from 12, 4 from 5
		{hint: 12, want: 12, line: 12},                   // 0 from 12, 1 from 13
		{hint: 6, want: 8, reason: "points at line 8 (its line 6, moved by the hunks before it)"}, // 3 from 5, 4 from 12
		{hint: 0, want: 0, reason: "gives no line number"},
	} {
		ch := chooseByHint(text, cands, tc.hint, tc.want, "its @@ header")
		switch {
		case tc.line > 0 && (!ch.ok || lineOf(text, ch.pick.start) != tc.line):
			t.Errorf("chooseByHint(hint %d, want %d) = %+v, want line %d", tc.hint, tc.want, ch, tc.line)
		case tc.line == 0 && (ch.ok || !strings.Contains(ch.reason, tc.reason)):
			t.Errorf("chooseByHint(hint %d, want %d) = %+v, want none, reason containing %q", tc.hint, tc.want, ch, tc.reason)
		}
	}
}

// TestLineHintsCarryTheOffset: a hunk found below its header moves the
// hint of the next by the same offset, plus the lines it added; a pure
// insertion and a hunk without a line number add only their lines.
func TestLineHintsCarryTheOffset(t *testing.T) {
	t.Parallel()
	var lh lineHints
	if got := lh.expect(10); got != 10 {
		t.Fatalf("expect(10) at first = %d, want 10", got)
	}
	lh.placed(10, 13, 2, true) // found 3 lines lower, added 2 lines
	if got := lh.expect(20); got != 25 {
		t.Errorf("expect(20) after offset 3 and 2 added lines = %d, want 25", got)
	}
	lh.placed(30, 0, 1, false) // an insertion
	if got := lh.expect(40); got != 46 {
		t.Errorf("expect(40) after an insertion of 1 line = %d, want 46", got)
	}
	lh.placed(0, 50, -1, true) // no line number
	if got := lh.expect(40); got != 45 {
		t.Errorf("expect(40) after a hunk without a line number removed 1 line = %d, want 45", got)
	}
	if got := lh.expect(0); got != 0 {
		t.Errorf("expect(0) = %d, want 0 (no hint)", got)
	}
}

// TestAnchorLinesAreTiered: equal lines first, lines starting with the
// anchor only when none is equal; every one in the region is returned.
func TestAnchorLinesAreTiered(t *testing.T) {
	t.Parallel()
	text := "def run(self):\n  pass\ndef run_all(self):\n  def run(self):\n"
	if got := findAnchorLines(text, 0, "def run(self):"); len(got) != 2 || got[0].start != 0 || got[1].start != strings.LastIndex(text, "  def") {
		t.Errorf("findAnchorLines(equal) = %+v, want lines 1 and 4", got)
	}
	if got := findAnchorLines(text, 1, "def run(self):"); len(got) != 1 {
		t.Errorf("findAnchorLines(from 1) = %+v, want line 4 only", got)
	}
	if got := findAnchorLines(text, 0, "def run_"); len(got) != 1 || lineOf(text, got[0].start) != 3 {
		t.Errorf("findAnchorLines(prefix) = %+v, want line 3", got)
	}
}

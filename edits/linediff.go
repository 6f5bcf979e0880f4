package edits

// LineDiff aligns two lists of lines, compared as whole strings (so a line's
// terminator is part of it), and calls replaced for every block a[a0:a1]
// that b[b0:b1] replaces, in order; two blocks are always separated by at
// least one equal line, and a and b are equal outside the blocks. It is the
// alignment UnifiedDiff renders: after the common prefix and suffix, small
// inputs get a minimal one (Myers); large ones are cut at lines that occur
// once on each side, and a region whose difference exceeds a fixed work
// budget (tens of milliseconds) becomes one replaced block, so the result is
// always a correct alignment but not always a minimal one.
func LineDiff(a, b []string, replaced func(a0, a1, b0, b1 int)) {
	for _, h := range diffLines(a, b) {
		replaced(h.A0, h.A1, h.B0, h.B1)
	}
}

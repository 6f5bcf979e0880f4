package edits

// ChangedLines tells where the lines first..last (1-based, inclusive) of
// oldText went in newText when some of them changed: the 1-based range of
// newText that replaced them (from > to when they were only deleted, and
// then from is the line where they were). ok is false when none of those
// lines changed. It explains a refused edit: "lines 11–13 changed since you
// read the file".
func ChangedLines(oldText, newText string, first, last int) (from, to int, ok bool) {
	a, b := splitTerminated(oldText), splitTerminated(newText)
	from, to = -1, -1
	for _, h := range diffLines(a, b) {
		// A hunk touches the range when its old lines overlap it, or when it
		// inserts lines strictly inside it.
		touches := h.A0 < last && h.A1 > first-1 || h.A0 == h.A1 && h.A0 > first-1 && h.A0 < last
		if !touches {
			continue
		}
		if !ok {
			from, ok = h.B0+1, true
		}
		to = h.B1
	}
	return from, to, ok
}

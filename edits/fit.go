package edits

import "strings"

// fitter fits a match's replacement to the file's own bytes. It is made
// once per search: which replacement lines the model left as they were in
// its search does not depend on where the search matched.
type fitter struct {
	searchLines, replaceLines []string
	// same is the search line each replacement line keeps, or -1. A patch
	// says it with its context lines; for an edit it is the alignment of
	// the search and the replacement, so a blank line is paired with the
	// blank line at its own place in that alignment, never with another one
	// because the two are equal.
	same []int
	// counterpart is, for a changed replacement line, the search line it
	// takes the place of (the one at the same position in its block of
	// changed lines), or -1 (an added line).
	counterpart []int
	// near is the search line each replacement line sits at or after, for
	// finding its neighbours.
	near []int
	// view is the normalisation of the tier that matched (typographic
	// look-alikes, Unicode NFC), nil for the others: on a changed line the
	// characters the model did not change keep the file's form.
	view func(string) (string, []int, bool)
	// exact: the search matched the file's bytes; nothing needs fitting.
	exact bool
}

// newFitter pairs the lines of the model's search and replacement (after
// the variant's normalisation). keep, when it has one entry per
// replacement line, is the pairing the caller knows (a patch's context
// lines); otherwise the lines are aligned with diffLines.
func newFitter(search, replace string, keep []int) *fitter {
	f := &fitter{}
	f.searchLines, _ = splitFinal(search)
	f.replaceLines, _ = splitFinal(replace)
	n, m := len(f.searchLines), len(f.replaceLines)
	f.same = make([]int, m)
	if validKeep(keep, n, m) {
		copy(f.same, keep)
	} else {
		for i := range f.same {
			f.same[i] = -1
		}
		a, b := 0, 0
		for _, h := range diffLines(f.searchLines, f.replaceLines) {
			for ; b < h.B0; a, b = a+1, b+1 {
				f.same[b] = a
			}
			a, b = h.A1, h.B1
		}
		for ; b < m && a < n; a, b = a+1, b+1 {
			f.same[b] = a
		}
	}
	// Between two kept lines, the k-th changed replacement line takes the
	// place of the k-th search line there.
	f.counterpart = make([]int, m)
	f.near = make([]int, m)
	prev := -1 // the search line kept last
	for i := 0; i < m; {
		if f.same[i] >= 0 {
			prev = f.same[i]
			f.counterpart[i], f.near[i] = -1, prev
			i++
			continue
		}
		j := i
		for j < m && f.same[j] < 0 {
			j++
		}
		next := n
		if j < m {
			next = f.same[j]
		}
		for k := i; k < j; k++ {
			f.counterpart[k] = -1
			if s := prev + 1 + (k - i); s < next {
				f.counterpart[k] = s
			}
			f.near[k] = min(prev+1+(k-i), max(next-1, prev+1), n-1)
		}
		i = j
	}
	return f
}

// validKeep reports whether keep pairs m replacement lines with n search
// lines, each search line at most once and in order.
func validKeep(keep []int, n, m int) bool {
	if len(keep) != m || m == 0 {
		return false
	}
	last := -1
	for _, j := range keep {
		if j < 0 {
			continue
		}
		if j <= last || j >= n {
			return false
		}
		last = j
	}
	return true
}

// fitToFile returns the replacement to write over real, the matched span
// of the file, given placed, the replacement the tier produced there
// (re-indented after an indentation shift). Lines the model left as they
// were are written with the file's bytes for the line they matched, so
// trailing blanks (a Markdown hard break), no-break spaces, curly quotes
// and the file's indentation on untouched lines survive the edit. Changed
// lines keep the model's text, with two corrections:
//   - after an indentation shift, only the shift is undone, line by line:
//     a changed line gets the file's indentation of the line it replaces
//     (or of the nearest line the model indented the same way), else the
//     shift put back as the same prefix the file has, else the shifted
//     width written in the style (tabs or spaces) of its neighbours;
//   - after a typography or NFC match, the characters of a changed line
//     that the model did not change keep the file's form.
//
// When the lines cannot be paired one to one, placed is returned
// unchanged.
func (f *fitter) fitToFile(real, placed string) string {
	if f.exact {
		return placed
	}
	realLines, _ := splitFinal(real)
	placedLines, placedNL := splitFinal(placed)
	searchLines, replaceLines := f.searchLines, f.replaceLines
	if len(realLines) != len(searchLines) || len(replaceLines) != len(placedLines) {
		return placed
	}
	reindented := false
	for i := range placedLines {
		reindented = reindented || placedLines[i] != replaceLines[i]
	}
	var ind *indentMap
	if reindented {
		ind = newIndentMap(realLines, searchLines)
	}
	out := make([]string, len(placedLines))
	for i, p := range placedLines {
		if j := f.same[i]; j >= 0 {
			out[i] = realLines[j]
			continue
		}
		line := p
		if ind != nil {
			if _, rest := splitIndent(replaceLines[i]); strings.TrimSpace(rest) != "" {
				line = ind.indentFor(f, i, p) + rest
			}
		}
		if cp := f.counterpart[i]; f.view != nil && cp >= 0 {
			line = keepFileChars(f.view, realLines[cp], searchLines[cp], line)
		}
		out[i] = line
	}
	s := strings.Join(out, "\n")
	if placedNL {
		s += "\n"
	}
	return s
}

// indentMap is what a match after an indentation shift tells about the
// file's indentation: each matched line's file and model indentation, the
// shift as a prefix when the file shows one, and the shift in columns.
type indentMap struct {
	real, search []string // indentation of each matched line, "" for blank lines
	content      []bool
	// addPrefix: every file line is indented as prefix + the model's
	// indentation; cutPrefix: every model line as prefix + the file's.
	addPrefix, cutPrefix string
	hasAdd, hasCut       bool
	shift                indentShift
	shiftOK              bool
}

func newIndentMap(realLines, searchLines []string) *indentMap {
	m := &indentMap{real: make([]string, len(realLines)), search: make([]string, len(realLines)), content: make([]bool, len(realLines))}
	m.hasAdd, m.hasCut = true, true
	set := false
	for j := range realLines {
		ri, rc := splitIndent(realLines[j])
		si, sc := splitIndent(searchLines[j])
		m.real[j], m.search[j] = ri, si
		if strings.TrimSpace(rc) == "" || strings.TrimSpace(sc) == "" {
			continue
		}
		m.content[j] = true
		add, okAdd := strings.CutSuffix(ri, si)
		cut, okCut := strings.CutSuffix(si, ri)
		if !set {
			m.addPrefix, m.cutPrefix, set = add, cut, true
		}
		m.hasAdd = m.hasAdd && okAdd && add == m.addPrefix
		m.hasCut = m.hasCut && okCut && cut == m.cutPrefix
	}
	m.hasAdd, m.hasCut = m.hasAdd && set, m.hasCut && set && !m.hasAdd
	m.shift, m.shiftOK = findShift(realLines, searchLines)
	return m
}

// indentFor returns the file indentation for changed replacement line i,
// whose indentation as the tier placed it is in placed.
func (m *indentMap) indentFor(f *fitter, i int, placed string) string {
	mi, _ := splitIndent(f.replaceLines[i])
	// The line it replaces, when the model indented that one the same way.
	if cp := f.counterpart[i]; cp >= 0 && m.content[cp] && m.search[cp] == mi {
		return m.real[cp]
	}
	// The nearest line the model indented the same way.
	best, bestDist := -1, 0
	for j := range m.search {
		if !m.content[j] || m.search[j] != mi {
			continue
		}
		if d := abs(j - f.near[i]); best < 0 || d < bestDist {
			best, bestDist = j, d
		}
	}
	if best >= 0 {
		return m.real[best]
	}
	// The shift as the file writes it.
	switch {
	case m.hasAdd:
		return m.addPrefix + mi
	case m.hasCut && strings.HasPrefix(mi, m.cutPrefix):
		return mi[len(m.cutPrefix):]
	}
	pi, _ := splitIndent(placed)
	if !m.shiftOK {
		return pi
	}
	// The shifted width, in the style of the nearest line with content.
	w := max(indentWidth(mi, m.shift.tabWidth)+m.shift.delta, 0)
	tabs := false
	best, bestDist = -1, 0
	for j := range m.real {
		if d := abs(j - f.near[i]); m.content[j] && (best < 0 || d < bestDist) {
			best, bestDist = j, d
		}
	}
	if best >= 0 {
		tabs = strings.Contains(m.real[best], "\t") || m.real[best] == "" && m.shift.tabs
	}
	if tabs {
		return strings.Repeat("\t", w/m.shift.tabWidth) + strings.Repeat(" ", w%m.shift.tabWidth)
	}
	return strings.Repeat(" ", w)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// keepFileChars writes line, a changed line, with the file's form of the
// characters the model did not change: real is the file line it replaces
// and search the model's copy of it, which equals real once view
// normalises real. The contents after the indentation are aligned
// character by character; equal runs take real's bytes.
func keepFileChars(view func(string) (string, []int, bool), real, search, line string) string {
	_, rc := splitIndent(real)
	_, sc := splitIndent(search)
	li, lc := splitIndent(line)
	rv, offs, changed := view(rc)
	if !changed || rv != sc || len(sc) > maxCharAlign || len(lc) > maxCharAlign {
		return line
	}
	a, aOff := runeStrings(sc)
	b, bOff := runeStrings(lc)
	// edge says whether byte v of the view starts or ends a character of
	// real: only whole characters are taken from it.
	edge := func(v int) bool { return v == 0 || v == len(rv) || offs[v] != offs[v-1] }
	var out strings.Builder
	out.WriteString(li)
	ai, bi := 0, 0
	equal := func(a1, b1 int) {
		if ai == a1 {
			return
		}
		x, y := aOff[ai], aOff[a1]
		if edge(x) && edge(y) {
			out.WriteString(rc[offs[x]:offs[y]])
		} else {
			out.WriteString(lc[bOff[bi]:bOff[b1]])
		}
	}
	for _, h := range diffLines(a, b) {
		equal(h.A0, h.B0)
		out.WriteString(lc[bOff[h.B0]:bOff[h.B1]])
		ai, bi = h.A1, h.B1
	}
	equal(len(a), len(b))
	return out.String()
}

// maxCharAlign bounds the lines keepFileChars aligns character by
// character; longer changed lines keep the model's text.
const maxCharAlign = 4096

// runeStrings splits s into its characters and returns the byte offset of
// each (and of the end).
func runeStrings(s string) ([]string, []int) {
	var out []string
	var offs []int
	for i, r := range s {
		_ = r
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	for k := 0; k+1 < len(offs); k++ {
		out = append(out, s[offs[k]:offs[k+1]])
	}
	return out, offs
}

// splitFinal splits text into lines, dropping one final line break, and
// says whether there was one.
func splitFinal(text string) ([]string, bool) {
	nl := strings.HasSuffix(text, "\n")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), nl
}

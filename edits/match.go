package edits

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Edit is one search-and-replace step. Search is the text the model believes
// the file holds; Replace is what it should become. All replaces every place
// the search matches instead of requiring exactly one.
type Edit struct {
	Search  string
	Replace string
	All     bool
}

// Applied is the outcome of applying edits to a text.
type Applied struct {
	// Text is the new LF text.
	Text string
	// Replacements counts the places that were replaced.
	Replacements int
	// Lines are the 1-based lines, in the text each step saw, where
	// replacements started.
	Lines []int
	// Repairs lists the tolerances the matches needed, each once, in the
	// order they were first used.
	Repairs []string

	// origin is, for each line of Text, the line of the original text it
	// is, or -1 (see lineOrigins); nil before the first step. originLost:
	// a step could not say.
	origin     []int
	originLost bool
}

// span is a byte range [start, end) of a text.
type span struct{ start, end int }

// candidate is one place a search matched and the text that replaces it
// there (indentation may differ per place). A tolerant match carries the
// fitter that puts the file's own bytes back into the replacement's
// unchanged lines when it is applied (see fitToFile).
type candidate struct {
	span
	replace string
	fit     *fitter
	// other marks a place only a more tolerant tier found: it makes the
	// tier's own places ambiguous but is never replaced (see
	// otherPlaces).
	other bool
}

// location is what the tiered matcher found: every candidate of the first
// tier that had any, that tier's repairs, and a phrase saying how tolerant
// the tier was, for messages.
type location struct {
	cands   []candidate
	repairs []string
	how     string
	// others are the places a more tolerant tier finds beside cands, when
	// cands came from a tolerant tier (see otherPlaces).
	others []candidate
}

// variant is the search and replacement after one of the input-side
// normalisations (tier 3 and tier 4).
type variant struct {
	search, replace string
	repair          string
	how             string
	typography      bool
	nfc             bool // compare in Unicode NFC (the file's view too)
	searchChanged   bool
}

// locate runs the tiers in order of growing tolerance and stops at the first
// one that finds any candidate. With wholeLines, an exact match counts only
// when it starts at the beginning of a line and ends at the end of one (a
// patch hunk's old side is whole lines, never part of one).
func locate(text string, search, replace string, wholeLines bool) location {
	return locateKeep(text, search, replace, wholeLines, nil)
}

// locateKeep is locate for a search and replacement whose line pairing the
// caller knows: keep[i] is the search line that replacement line i keeps,
// or -1 (a patch's context lines). Without it the lines are aligned.
func locateKeep(text string, search, replace string, wholeLines bool, keep []int) location {
	searchN, replaceN := strings.Count(search, "\n"), strings.Count(replace, "\n")
	vs := variants(search, replace)
	for _, v := range vs {
		view, offsets := text, []int(nil)
		if v.typography {
			if nt, offs, changed := normalizeTypography(text, true); changed {
				view, offsets = nt, offs
			} else if !v.searchChanged {
				continue // neither side has look-alikes: nothing new to try
			}
		}
		if v.nfc {
			if nt, offs, changed := nfcView(text); changed {
				view, offsets = nt, offs
			} else if !v.searchChanged {
				continue // both are NFC already
			}
		}
		loc := locateIn(view, v.search, v.replace, wholeLines)
		if len(loc.cands) == 0 {
			continue
		}
		if v.repair != "" {
			loc.repairs = append([]string{v.repair}, loc.repairs...)
			loc.how = joinHow(v.how, loc.how)
		}
		if offsets != nil {
			// A place must start and end where a character of the file
			// starts or ends: part of one normalised character (an "e" of
			// a decomposed "é", a dot of "…") is no place at all.
			edge := func(v int) bool { return v == 0 || v == len(view) || offsets[v] != offsets[v-1] }
			kept := loc.cands[:0]
			for _, c := range loc.cands {
				if edge(c.start) && edge(c.end) {
					c.start, c.end = offsets[c.start], offsets[c.end]
					kept = append(kept, c)
				}
			}
			if loc.cands = kept; len(kept) == 0 {
				continue
			}
		}
		k := keep
		if strings.Count(v.search, "\n") != searchN || strings.Count(v.replace, "\n") != replaceN {
			k = nil // the variant dropped or added lines
		}
		f := newFitter(v.search, v.replace, k)
		f.exact = v.repair == "" && loc.how == ""
		switch {
		case v.typography:
			f.view = func(s string) (string, []int, bool) { return normalizeTypography(s, true) }
		case v.nfc:
			f.view = nfcView
		}
		for i := range loc.cands {
			loc.cands[i].fit = f
		}
		if !f.exact {
			loc.others = otherPlaces(text, vs, loc.cands, wholeLines)
		}
		return loc
	}
	return locateElided(text, search, replace)
}

// ambiguityHow says how tolerant the places of an ambiguity were, for
// messages: the tier's phrase, and that some matched more loosely.
func (loc location) ambiguityHow() string {
	if len(loc.others) == 0 {
		return loc.how
	}
	return loc.how + ", or more loosely,"
}

// otherPlaces returns the places, overlapping none of cands, where any
// variant of the search matches exactly or line by line once blanks at
// the lines' ends are ignored (the most tolerant line tier), in the
// variant's view of the text. A tolerant tier stops at the first tier that
// finds a place, so a place that needs a more tolerant tier (curly quotes
// the model wrote as ASCII) would otherwise lose to a less tolerant one
// somewhere else (the same lines at another indentation): such places make
// the match ambiguous. A search whose lines recur all over the text is
// not looked at again (nil).
func otherPlaces(text string, vs []variant, cands []candidate, wholeLines bool) []candidate {
	var out []candidate
	overlaps := func(sp span, list []candidate) bool {
		for _, c := range list {
			if sp.start < c.end && c.start < sp.end || sp.start == c.start {
				return true
			}
		}
		return false
	}
	for _, v := range vs {
		if strings.TrimSpace(v.search) == "" {
			continue
		}
		view, offsets := text, []int(nil)
		if v.typography {
			if nt, offs, changed := normalizeTypography(text, true); changed {
				view, offsets = nt, offs
			}
		}
		if v.nfc {
			if nt, offs, changed := nfcView(text); changed {
				view, offsets = nt, offs
			}
		}
		places, ok := loosePlaces(view, v.search, wholeLines)
		if !ok {
			return nil
		}
		for _, sp := range places {
			if offsets != nil {
				edge := func(x int) bool { return x == 0 || x == len(view) || offsets[x] != offsets[x-1] }
				if !edge(sp.start) || !edge(sp.end) {
					continue
				}
				sp = span{offsets[sp.start], offsets[sp.end]}
			}
			if !overlaps(sp, cands) && !overlaps(sp, out) {
				out = append(out, candidate{span: sp, other: true})
			}
		}
	}
	return out
}

// loosePlaces returns every exact place of search in text (whole lines
// with wholeLines) and every run of lines equal to the search's lines once
// blanks at their ends are ignored; ok is false when that would cost more
// than lineWork comparisons.
func loosePlaces(text, search string, wholeLines bool) ([]span, bool) {
	var out []span
	for _, s := range findAll(text, search) {
		startsLine := s.start == 0 || text[s.start-1] == '\n'
		endsLine := s.end == len(text) || text[s.end-1] == '\n' || text[s.end] == '\n'
		if !wholeLines || startsLine && endsLine {
			out = append(out, s)
		}
	}
	wantNL := strings.HasSuffix(search, "\n")
	sl := strings.Split(strings.TrimSuffix(search, "\n"), "\n")
	anchor, aj := "", -1
	trimmed := make([]string, len(sl))
	for j, l := range sl {
		trimmed[j] = strings.TrimSpace(l)
		if len(trimmed[j]) > len(anchor) {
			anchor, aj = trimmed[j], j
		}
	}
	if aj < 0 {
		return out, true
	}
	work, ok := 0, true
	eachTrimmedLine(text, anchor, func(ls, _ int) bool {
		if work += aj + len(sl); work > lineWork {
			ok = false
			return false
		}
		if b, found := blockAround(text, ls, aj, len(sl), wantNL); found && trimEqualAll(b.lines, trimmed) {
			out = append(out, span{b.start, b.end})
		}
		return true
	})
	return out, ok
}

func joinHow(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " and " + b
}

// variants lists the search texts to try: the raw one, then each input-side
// normalisation that changes it.
func variants(search, replace string) []variant {
	vs := []variant{{search: search, replace: replace}}
	if hasEscapes(search) {
		r := replace
		if looksEscaped(r) {
			r = unescape(r)
		}
		if s := unescape(search); s != search {
			vs = append(vs, variant{search: s, replace: r, repair: RepairJSONEscapeUnwrapped, how: `after turning literal \n, \t, \r into real characters`})
		}
	}
	if s, ok := stripLineNumbers(search, true); ok && s != search {
		r := replace
		if rs, ok := stripLineNumbers(replace, false); ok {
			r = rs
		}
		vs = append(vs, variant{search: s, replace: r, repair: RepairLineNumbersStripped, how: "after removing read_file line-number prefixes"})
	}
	if s, r, ok := unwrapSearch(search, replace); ok && s != search && strings.TrimSpace(s) != "" {
		vs = append(vs, variant{search: s, replace: r, repair: RepairSearchFenceRemoved, how: "after removing the code fence or file-name line around the search"})
	}
	if s, r, ok := trimBlankEdges(search, replace); ok && s != search {
		vs = append(vs, variant{search: s, replace: r, repair: RepairBlankEdgesTrimmed, how: "after dropping blank lines at the edges of the search"})
	}
	// The typography tier also runs when only the file has look-alikes.
	ts, _, changed := normalizeTypography(search, false)
	tr := replace
	if changed {
		// The search was "smartened" (curly quotes, dashes): the
		// replacement most likely was too.
		tr, _, _ = normalizeTypography(replace, false)
	}
	vs = append(vs, variant{search: ts, replace: tr, repair: RepairTypographyNormalized, how: "after treating typographic quotes, dashes and no-break spaces as their ASCII look-alikes", typography: true, searchChanged: changed})
	// So does the NFC tier when only the file is decomposed.
	ns, nr := norm.NFC.String(search), norm.NFC.String(replace)
	vs = append(vs, variant{search: ns, replace: nr, repair: RepairUnicodeNormalized, how: "after comparing composed and decomposed accents (Unicode NFC) as equal", nfc: true, searchChanged: ns != search})
	if s := strings.TrimRight(search, "\n"); s != search && s != "" {
		r := replace
		for k := len(search) - len(s); k > 0 && strings.HasSuffix(r, "\n"); k-- {
			r = r[:len(r)-1]
		}
		vs = append(vs, variant{search: s, replace: r, repair: RepairFinalNewlineAdjusted, how: "after dropping the final line break of the search"})
	}
	// A normalisation that leaves only blanks (a search of `\n`, or of a
	// bare line-number prefix) would match any blank line: drop it.
	if strings.TrimSpace(search) != "" {
		kept := vs[:1]
		for _, v := range vs[1:] {
			if strings.TrimSpace(v.search) != "" {
				kept = append(kept, v)
			}
		}
		vs = kept
	}
	return vs
}

// locateIn runs the text-side tiers on one view of the text: exact, then
// whole lines ignoring trailing blanks, then a uniform indentation shift,
// then whole lines ignoring leading and trailing blanks. With wholeLines,
// exact matches that start or end inside a line are dropped; the line tiers
// only ever find whole lines.
func locateIn(text, search, replace string, wholeLines bool) location {
	if search == "" {
		return location{}
	}
	spans := findAll(text, search)
	if wholeLines {
		// A hunk's old side starts where a line starts and ends where one
		// ends: after its own line break, or where the file's line breaks.
		kept := spans[:0]
		for _, s := range spans {
			startsLine := s.start == 0 || text[s.start-1] == '\n'
			endsLine := s.end == len(text) || text[s.end-1] == '\n' || text[s.end] == '\n' || text[s.end] == '\r'
			if startsLine && endsLine {
				kept = append(kept, s)
			}
		}
		spans = kept
	}
	if len(spans) > 0 {
		cands := make([]candidate, len(spans))
		for i, s := range spans {
			cands[i] = candidate{span: s, replace: replace}
		}
		return location{cands: cands, how: ""}
	}
	return locateLines(text, search, replace)
}

// findAll returns every start of search in text, overlapping ones included,
// in time linear in the sizes of both: a search that cannot overlap itself
// is found with strings.Index from the end of each match, one that can (a
// periodic search such as "aaaa") with the Knuth–Morris–Pratt automaton.
func findAll(text, search string) []span {
	var out []span
	fail := kmpTable(len(search), func(i, j int) bool { return search[i] == search[j] })
	step := len(search)
	if len(search) > 0 && fail[len(search)-1] > 0 {
		step = 0 // overlaps are possible
	}
	if step > 0 {
		for pos := 0; pos <= len(text); {
			i := strings.Index(text[pos:], search)
			if i < 0 {
				break
			}
			out = append(out, span{pos + i, pos + i + len(search)})
			pos += i + step
		}
		return out
	}
	kmpScan(len(text), len(search), fail, func(i, j int) bool { return text[i] == search[j] }, func(end int) {
		out = append(out, span{end - len(search), end})
	})
	return out
}

// kmpTable is the Knuth–Morris–Pratt failure table of a pattern of length
// m, compared with eq(i, j) (pattern[i] == pattern[j]).
func kmpTable(m int, eq func(i, j int) bool) []int {
	fail := make([]int, m)
	for i, k := 1, 0; i < m; i++ {
		for k > 0 && !eq(i, k) {
			k = fail[k-1]
		}
		if eq(i, k) {
			k++
		}
		fail[i] = k
	}
	return fail
}

// kmpScan runs the automaton over a text of length n, comparing with
// eq(textIndex, patternIndex), and calls found with the end of every match,
// overlapping ones included.
func kmpScan(n, m int, fail []int, eq func(i, j int) bool, found func(end int)) {
	if m == 0 {
		return
	}
	for i, k := 0, 0; i < n; i++ {
		for k > 0 && !eq(i, k) {
			k = fail[k-1]
		}
		if eq(i, k) {
			k++
		}
		if k == m {
			found(i + 1)
			k = fail[k-1]
		}
	}
}

// block is a run of whole lines of a text that may match a search.
type block struct {
	lines      []string // the file's lines, without "\n"
	start, end int      // byte span; end includes the last "\n" when wanted
	missingNL  bool     // the search ended in "\n" but the block ends the text without one
}

// lineWork bounds the line comparisons of the whole-line tiers' fast path
// (candidate blocks × search lines); past it they switch to the linear one.
const lineWork = 4 << 20

// locateLines implements the whole-line tiers. Candidate blocks are found by
// looking for the search's longest trimmed line with strings.Index, so that
// the cost on a large file stays close to one exact scan; a search whose
// anchor line is in the file so often that this would cost more than
// lineWork comparisons (a file of repeated lines) is located with the
// Knuth–Morris–Pratt automaton over lines instead, in linear time.
func locateLines(text, search, replace string) location {
	wantNL := strings.HasSuffix(search, "\n")
	sl := strings.Split(strings.TrimSuffix(search, "\n"), "\n")
	anchor, aj := "", -1
	for j, l := range sl {
		if t := strings.TrimSpace(l); len(t) > len(anchor) {
			anchor, aj = t, j
		}
	}
	if aj < 0 {
		return location{}
	}
	trimmed := make([]string, len(sl))
	for j, l := range sl {
		trimmed[j] = strings.TrimSpace(l)
	}
	var blocks []block
	work, tooMuch := 0, false
	eachTrimmedLine(text, anchor, func(ls, _ int) bool {
		if work += aj + len(sl); work > lineWork {
			tooMuch = true
			return false
		}
		if b, ok := blockAround(text, ls, aj, len(sl), wantNL); ok && trimEqualAll(b.lines, trimmed) {
			blocks = append(blocks, b)
		}
		return true
	})
	if tooMuch {
		return locateManyLines(text, sl, trimmed, replace, wantNL)
	}
	if len(blocks) == 0 {
		return location{}
	}
	// Tier 2a: ignore trailing blanks only.
	var cands []candidate
	for _, b := range blocks {
		if rstripEqualAll(b.lines, sl) {
			cands = append(cands, blockCandidate(b, replace))
		}
	}
	if len(cands) > 0 {
		loc := location{cands: cands, repairs: []string{RepairWhitespaceNormalized}, how: "ignoring trailing whitespace"}
		if len(cands) == 1 && blocks[0].missingNL && len(blocks) == 1 && strings.Join(blocks[0].lines, "\n") == strings.Join(sl, "\n") {
			// Only the final line break differed.
			loc.repairs, loc.how = nil, "after dropping the final line break of the search"
		}
		return withNewlineRepair(loc, blocks)
	}
	// Tier 2b: one uniform indentation shift; the replacement is re-indented.
	for _, b := range blocks {
		if sh, ok := findShift(b.lines, sl); ok {
			cands = append(cands, blockCandidate(b, sh.reindent(replace)))
		}
	}
	if len(cands) > 0 {
		return withNewlineRepair(location{cands: cands, repairs: []string{RepairIndentShifted}, how: "after shifting the indentation"}, blocks)
	}
	// Tier 2c: ignore leading and trailing blanks.
	for _, b := range blocks {
		cands = append(cands, blockCandidate(b, replace))
	}
	return withNewlineRepair(location{cands: cands, repairs: []string{RepairWhitespaceNormalized}, how: "ignoring leading and trailing whitespace"}, blocks)
}

// locateManyLines is the whole-line tiers for a search whose lines recur
// all over the file: every run of lines equal to the search's once trimmed
// is found in one pass, and so is every run equal up to trailing blanks
// (tier 2a). When there are too many runs to compare each with the search,
// the indentation tier (2b), which compares each run on its own, is skipped
// and tier 2c answers: so many places make the search ambiguous anyway.
func locateManyLines(text string, sl, trimmed []string, replace string, wantNL bool) location {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	if starts[len(starts)-1] == len(text) && len(text) > 0 {
		starts = starts[:len(starts)-1] // no empty line after the final "\n"
	}
	line := func(i int) string {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1] - 1
		} else if end > 0 && text[end-1] == '\n' {
			end--
		}
		return text[starts[i]:end]
	}
	n, m := len(starts), len(sl)
	runs := func(norm func(string) string, pattern []string) []int {
		ids := map[string]int32{}
		pat := make([]int32, m)
		for j, l := range pattern {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			pat[j] = id
		}
		txt := make([]int32, n)
		for i := range n {
			id, ok := ids[norm(line(i))]
			if !ok {
				id = -1
			}
			txt[i] = id
		}
		fail := kmpTable(m, func(i, j int) bool { return pat[i] == pat[j] })
		var out []int
		kmpScan(n, m, fail, func(i, j int) bool { return txt[i] == pat[j] }, func(end int) { out = append(out, end-m) })
		return out
	}
	span := func(first int) (candidate, bool) {
		last := first + m - 1
		c := candidate{span: span{start: starts[first]}, replace: replace}
		switch {
		case last+1 < n:
			c.end = starts[last+1] - 1
			if wantNL {
				c.end++
			}
		case len(text) > 0 && text[len(text)-1] == '\n':
			c.end = len(text) - 1
			if wantNL {
				c.end++
			}
		default:
			c.end = len(text)
			if wantNL {
				c.replace = strings.TrimSuffix(replace, "\n")
				return c, true
			}
		}
		return c, false
	}
	build := func(firsts []int, repairs []string, how string) location {
		loc := location{repairs: repairs, how: how}
		for _, f := range firsts {
			c, missingNL := span(f)
			if missingNL && len(loc.cands) == 0 {
				loc.repairs = append(loc.repairs, RepairFinalNewlineAdjusted)
			}
			loc.cands = append(loc.cands, c)
		}
		return loc
	}
	rs := make([]string, m)
	for j, l := range sl {
		rs[j] = rstrip(l)
	}
	firsts := runs(strings.TrimSpace, trimmed)
	if len(firsts) == 0 {
		return location{}
	}
	if exact := runs(rstrip, rs); len(exact) > 0 {
		loc := build(exact, []string{RepairWhitespaceNormalized}, "ignoring trailing whitespace")
		if len(exact) == 1 && len(firsts) == 1 && len(loc.repairs) == 2 {
			same := true
			for k := range m {
				same = same && line(exact[0]+k) == sl[k]
			}
			if same { // only the final line break differed
				loc.repairs, loc.how = []string{RepairFinalNewlineAdjusted}, "after dropping the final line break of the search"
			}
		}
		return loc
	}
	if len(firsts)*m <= lineWork {
		var cands []candidate
		for _, f := range firsts {
			lines := make([]string, m)
			for k := range lines {
				lines[k] = line(f + k)
			}
			if sh, ok := findShift(lines, sl); ok {
				c, _ := span(f)
				c.replace = sh.reindent(c.replace)
				cands = append(cands, c)
			}
		}
		if len(cands) > 0 {
			return location{cands: cands, repairs: []string{RepairIndentShifted}, how: "after shifting the indentation"}
		}
	}
	return build(firsts, []string{RepairWhitespaceNormalized}, "ignoring leading and trailing whitespace")
}

func withNewlineRepair(loc location, blocks []block) location {
	for _, b := range blocks {
		if b.missingNL && b.start == loc.cands[0].start {
			loc.repairs = append(loc.repairs, RepairFinalNewlineAdjusted)
			break
		}
	}
	return loc
}

func blockCandidate(b block, replace string) candidate {
	if b.missingNL {
		replace = strings.TrimSuffix(replace, "\n")
	}
	return candidate{span: span{b.start, b.end}, replace: replace}
}

// blockAround collects n whole lines of text such that line j of them starts
// at byte ls.
func blockAround(text string, ls, j, n int, wantNL bool) (block, bool) {
	start := ls
	for k := 0; k < j; k++ {
		if start == 0 {
			return block{}, false
		}
		start = strings.LastIndexByte(text[:start-1], '\n') + 1
	}
	b := block{start: start, lines: make([]string, 0, n)}
	pos := start
	for k := 0; k < n; k++ {
		if pos > len(text) || (pos == len(text) && k > 0) {
			return block{}, false
		}
		e := strings.IndexByte(text[pos:], '\n')
		if e < 0 {
			if k != n-1 {
				return block{}, false
			}
			b.lines = append(b.lines, text[pos:])
			b.end = len(text)
			b.missingNL = wantNL
			return b, true
		}
		b.lines = append(b.lines, text[pos:pos+e])
		b.end = pos + e
		pos += e + 1
	}
	if wantNL {
		b.end++
	}
	return b, true
}

func trimEqualAll(lines, trimmed []string) bool {
	for i, l := range lines {
		if strings.TrimSpace(l) != trimmed[i] {
			return false
		}
	}
	return true
}

func rstripEqualAll(lines, search []string) bool {
	for i, l := range lines {
		if rstrip(l) != rstrip(search[i]) {
			return false
		}
	}
	return true
}

// lineOf returns the 1-based line of byte offset off.
func lineOf(text string, off int) int {
	return strings.Count(text[:off], "\n") + 1
}

// linesOf returns the 1-based start lines of sorted spans.
func linesOf(text string, spans []candidate) []int {
	out := make([]int, len(spans))
	line, pos := 1, 0
	for i, c := range spans {
		line += strings.Count(text[pos:c.start], "\n")
		pos = c.start
		out[i] = line
	}
	return out
}

// nonOverlapping keeps candidates left to right, dropping any that overlap
// one already kept.
func nonOverlapping(cands []candidate) []candidate {
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].start < cands[j].start })
	var out []candidate
	end := -1
	for _, c := range cands {
		if c.start >= end || (c.start == c.end && c.start > end) {
			out = append(out, c)
			end = c.end
		}
	}
	return out
}

// resolve turns the search of e into the places to replace in text, or an
// *Error that says what to do next.
func resolve(text string, e Edit, subject string) ([]candidate, location, error) {
	if e.Search == "" {
		return nil, location{}, newError(CodeInvalidInput, "search is empty; give the exact text to replace, or use write to create or overwrite a whole file")
	}
	if e.Search == e.Replace {
		return nil, location{}, newError(CodeNoChange, "search and replace are identical, so nothing would change; put the new text in replace")
	}
	loc := locate(text, e.Search, e.Replace, false)
	if len(loc.cands) == 0 {
		return nil, loc, notFound(text, e.Search, subject)
	}
	cands := loc.cands
	if e.All {
		return nonOverlapping(cands), loc, nil
	}
	if len(cands) > 1 || len(loc.others) > 0 {
		return nil, loc, notUnique(text, append(append([]candidate(nil), cands...), loc.others...), loc.ambiguityHow(), subject, nextForEdit)
	}
	// A tolerant match must be the first occurrence of its real bytes, so
	// that nothing can mistake one copy for another.
	if loc.how != "" {
		c := cands[0]
		if real := text[c.start:c.end]; real != "" {
			if first := strings.Index(text, real); first >= 0 && first != c.start {
				return nil, loc, notUnique(text, []candidate{{span: span{first, first + len(real)}}, c}, loc.how, subject, nextForEdit)
			}
		}
	}
	return cands, loc, nil
}

// nextForEdit is the next step after an ambiguous edit search.
const nextForEdit = "add surrounding lines to make it unique, or set all=true to replace every one"

// notUnique builds the search_not_unique error: how many places, on which
// lines, and next, the step that makes the search unique.
func notUnique(text string, cands []candidate, how, subject, next string) *Error {
	lines := linesOf(text, nonOverlappingSorted(cands))
	where := subject + " matches"
	if how != "" {
		where = subject + " is not in the file exactly; " + how + " it matches"
	}
	return &Error{
		Code:    CodeSearchNotUnique,
		Message: fmt.Sprintf("%s %d places (lines %s); %s", where, len(cands), formatLines(lines), next),
		Lines:   lines,
	}
}

func nonOverlappingSorted(cands []candidate) []candidate {
	c := append([]candidate(nil), cands...)
	sort.SliceStable(c, func(i, j int) bool { return c[i].start < c[j].start })
	return c
}

// replaceSpansOrigins builds the new text from sorted, non-overlapping
// candidates, and returns its line origins (see lineOrigins).
func replaceSpansOrigins(text string, cands []candidate) (string, []int) {
	written := make([]string, len(cands))
	var b strings.Builder
	n := len(text)
	for _, c := range cands {
		n += len(c.replace) - (c.end - c.start)
	}
	if n > 0 {
		b.Grow(n)
	}
	pos := 0
	for k, c := range cands {
		b.WriteString(text[pos:c.start])
		written[k] = c.replace
		if c.fit != nil {
			written[k] = c.fit.fitToFile(text[c.start:c.end], c.replace)
		}
		b.WriteString(written[k])
		pos = c.end
	}
	b.WriteString(text[pos:])
	return b.String(), lineOrigins(text, cands, written)
}

// normalizeInput turns CRLF and CR in model-supplied text into LF, the form
// every matched text is in.
func normalizeInput(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// MaxSteps is the most steps one ApplyAll takes: each step scans and
// rebuilds the whole text, so a thousand keep a multi-megabyte file within
// about a second.
const MaxSteps = 1000

// Apply performs one edit on LF text: it finds the place the search means
// through the tiers (see the package documentation), replaces it (or every
// place, with All), and reports where and with which repairs. Failures are
// *Error values with code search_not_found, search_not_unique, no_change or
// invalid_input.
func Apply(text string, e Edit) (Applied, error) {
	e.Search, e.Replace = normalizeInput(e.Search), normalizeInput(e.Replace)
	cands, loc, err := resolve(text, e, "search text")
	if err != nil {
		return Applied{}, err
	}
	out, origin := replaceSpansOrigins(text, cands)
	if out == text {
		return Applied{}, newError(CodeNoChange, "the replacement leaves the text exactly as it is; put the intended new text in replace")
	}
	return Applied{Text: out, Replacements: len(cands), Lines: linesOf(text, cands), Repairs: loc.repairs, origin: origin}, nil
}

// ApplyAll performs the steps in order, each on the result of the previous
// one, entirely in memory. If any step fails, it returns that step's *Error
// with Step set (1-based) and no text: callers write nothing.
func ApplyAll(ctx context.Context, text string, steps []Edit) (Applied, error) {
	if len(steps) == 0 {
		return Applied{}, newError(CodeInvalidInput, "edits is empty; give at least one {search, replace} step")
	}
	if len(steps) > MaxSteps {
		return Applied{}, newError(CodeInvalidInput, "edits has %d steps, more than one call takes (%d); split them over several multi_edit calls, or use all=true for one replacement repeated everywhere", len(steps), MaxSteps)
	}
	if len(steps) == 1 {
		return Apply(text, steps[0])
	}
	res := Applied{Text: text}
	for i, st := range steps {
		if err := ctx.Err(); err != nil {
			return Applied{}, err
		}
		a, err := Apply(res.Text, st)
		if err != nil {
			if e, ok := errors.AsType[*Error](err); ok {
				e.Step = i + 1
				e.Message = fmt.Sprintf("step %d of %d failed, so no step was applied: %s", i+1, len(steps), e.Message)
			}
			return Applied{}, err
		}
		res.Text = a.Text
		res.track(a.origin)
		res.Replacements += a.Replacements
		res.Lines = append(res.Lines, a.Lines...)
		res.Repairs = appendUnique(res.Repairs, a.Repairs...)
	}
	if res.Text == text {
		return Applied{}, newError(CodeNoChange, "the steps together leave the text exactly as it was; nothing to write")
	}
	return res, nil
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, l := range list {
			if l == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

package edits

import (
	"fmt"
	"strings"
)

// applyChunks applies a "*** Begin Patch" part's chunks to text in order, as the
// format defines: each chunk is searched in the region after the previous
// chunk of the file. Its @@ anchors narrow that region: the first anchor
// is looked for there, each next one after a line the previous one
// matched first (see findAnchorLines, findChunkRegion), and the chunk's old side
// is searched from the first line the last anchor matched, so that a chunk
// may repeat its anchor as its first context line. An anchor that matches
// several lines is no error by itself: ambiguity is judged on the old side.
// The old side goes through the same tiers as unified hunks; it applies
// where it matches once in the narrowed region (even when the whole file
// or the anchor holds it more than once: RepairAnchorScoped), and where
// its unified @@ line number chooses (chooseByHint). Several places left
// are settled by the anchor's distance only when all of them lie under the
// anchor's first line and the first is clearly the nearest
// (RepairAnchorNearest, see chooseNearAnchor); otherwise the chunk is
// refused. A chunk closed by "*** End of File" must match at the end of
// the text. A chunk with only added lines goes right after its anchor
// line, which must then be one line, or at the end of the file when it has
// no anchor.
func (fp FilePatch) applyChunks(text string, trace func(placedHunk)) (Applied, error) {
	res := Applied{Text: text}
	from := 0 // where the previous chunk ended
	var hints lineHints
	for i, h := range fp.hunks {
		if h.old == h.new {
			continue
		}
		r, err := findChunkRegion(res.Text, from, h.anchors)
		if err == nil && h.old == "" {
			from, err = res.insertChunk(h, r, &hints, trace)
		} else if err == nil {
			from, err = res.replaceChunk(h, r, &hints, trace)
		}
		if err != nil {
			err.Step = i + 1
			err.Message = fmt.Sprintf("%s, chunk %d of %d (patch line %d, %s): %s", fp.name(), i+1, len(fp.hunks), h.line, h.header, err.Message)
			return Applied{}, err
		}
	}
	return res, nil
}

// chunkRegion is where a chunk is searched: from start, which is the start
// of its last @@ anchor's first line or else the end of the previous chunk.
type chunkRegion struct {
	start int
	// afterAnchor is the end of the last anchor's first line; -1 without
	// anchors.
	afterAnchor int
	// ends are the lines the anchors (all of them, in turn) matched, the
	// first at start; nil without anchors.
	ends []anchorLine
	// scoped: the anchors match differently in the whole file, so the
	// region decided where they are.
	scoped bool
	// anchor is the last anchor's text, for messages.
	anchor string
}

// findChunkRegion places a chunk's @@ anchors: the first at or after from,
// each next one at or after the end of the first line the previous one
// matched. It fails only when an anchor matches no line there.
func findChunkRegion(text string, from int, anchors []string) (chunkRegion, *Error) {
	r := chunkRegion{start: from, afterAnchor: -1}
	if len(anchors) == 0 {
		return r, nil
	}
	ends, err := anchorChain(text, from, anchors)
	if err != nil {
		return chunkRegion{}, err
	}
	if from > 0 {
		if all, e := anchorChain(text, 0, anchors); e != nil || len(all) != len(ends) || all[0] != ends[0] {
			r.scoped = true
		}
	}
	r.ends, r.anchor = ends, anchors[len(anchors)-1]
	r.start, r.afterAnchor = ends[0].start, ends[0].next
	return r, nil
}

// anchorChain returns the lines the last of anchors matches through the
// chain that starts at from (see findChunkRegion), in order, or the
// search_not_found error of the first anchor that matches none.
func anchorChain(text string, from int, anchors []string) ([]anchorLine, *Error) {
	ends := findAnchorLines(text, from, anchors[0])
	if len(ends) == 0 {
		return nil, anchorNotFound(text, from, anchors[0], false)
	}
	for k := 1; k < len(anchors); k++ {
		next := findAnchorLines(text, ends[0].next, anchors[k])
		if len(next) == 0 {
			return nil, anchorNotFound(text, ends[0].next, anchors[k], true)
		}
		ends = next
	}
	return ends, nil
}

// subject names a chunk's old side in messages, with where it was searched.
func (r chunkRegion) subject(text string) string {
	switch {
	case r.afterAnchor >= 0:
		return fmt.Sprintf("the chunk's old side (searched from line %d, its @@ line)", lineOf(text, r.start))
	case r.start > 0:
		return fmt.Sprintf("the chunk's old side (searched after line %d, where the previous chunk ended)", lineOf(text, r.start-1))
	}
	return "the chunk's old side"
}

// insertChunk adds a chunk that has only added lines: right after its last
// anchor's line, else after the line its unified @@ header names, else (and
// always with "*** End of File") at the end of the text, keeping a missing
// final line break missing (RepairFinalNewlineAdjusted). It returns where
// the chunk ends. An anchor that matched several lines is ambiguous here:
// nothing but its line says where the chunk goes.
func (res *Applied) insertChunk(h patchHunk, r chunkRegion, hints *lineHints, trace func(placedHunk)) (int, *Error) {
	if len(r.ends) > 1 && !h.eof {
		return 0, anchorNotUnique(res.Text, r.anchor, r.ends)
	}
	at := len(res.Text)
	switch {
	case r.afterAnchor >= 0 && !h.eof:
		at = r.afterAnchor
	case h.hint > 0 && !h.eof:
		at = insertionOffset(res.Text, max(h.hint+hints.shift, 0))
	}
	ins := h.new
	if at == len(res.Text) && at > 0 && res.Text[at-1] != '\n' {
		// Keep the file's missing final line break missing.
		ins = "\n" + strings.TrimSuffix(ins, "\n")
		res.Repairs = appendUnique(res.Repairs, RepairFinalNewlineAdjusted)
	}
	if trace != nil {
		trace(placedHunk{before: res.Text, from: r.start, pick: candidate{span: span{at, at}, replace: ins}})
	}
	first := at
	if strings.HasPrefix(ins, "\n") {
		first++
	}
	res.insert(at, ins, first)
	if r.scoped {
		res.Repairs = appendUnique(res.Repairs, RepairAnchorScoped)
	}
	hints.placed(h.hint, 0, strings.Count(h.new, "\n"), false)
	return at + len(ins), nil
}

// replaceChunk finds a chunk's old side in its region (at the end of the
// text with "*** End of File") and replaces it with its new side. It
// returns where the chunk ends.
func (res *Applied) replaceChunk(h patchHunk, r chunkRegion, hints *lineHints, trace func(placedHunk)) (int, *Error) {
	subject := r.subject(res.Text)
	loc := locateKeep(res.Text[r.start:], h.old, h.new, true, h.keep)
	cands := make([]candidate, 0, len(loc.cands)+len(loc.others))
	for _, c := range append(append([]candidate(nil), loc.cands...), loc.others...) {
		c.start += r.start
		c.end += r.start
		cands = append(cands, c)
	}
	if h.eof {
		var err *Error
		if cands, err = atEndOfText(res.Text, cands, subject); err != nil {
			return 0, err
		}
	}
	want := hints.expect(h.hint)
	pick, rule, err := chooseChunkPlace(res.Text, h, r, cands, loc.ambiguityHow(), want, subject)
	if err == nil && pick.other {
		err = notUnique(res.Text, cands, loc.ambiguityHow(), subject, "the place chosen matches only more loosely than another; add context lines until the chunk matches one place")
	}
	if err != nil {
		return 0, err
	}
	scoped := r.scoped
	if r.start > 0 && !scoped {
		// Did the region decide? Searched in the whole file, the old
		// side would have matched elsewhere too, or at another tier.
		whole := locate(res.Text, h.old, h.new, true)
		scoped = len(whole.cands) != len(loc.cands) || whole.how != loc.how
	}
	if trace != nil {
		trace(placedHunk{before: res.Text, from: r.start, cands: cands, want: want, pick: pick, rule: rule, anchors: r.ends, keep: h.keep})
	}
	before := len(res.Text)
	at, added := res.replace(pick, loc.repairs, rule)
	if scoped {
		res.Repairs = appendUnique(res.Repairs, RepairAnchorScoped)
	}
	hints.placed(h.hint, at, added, true)
	// The chunk ends where what was written ends: fitting the replacement
	// to the file may have made it longer or shorter than pick.replace.
	return pick.end + len(res.Text) - before, nil
}

// atEndOfText keeps the candidates followed by nothing but blanks, for a
// chunk closed by "*** End of File"; it is an error when there were
// candidates and none of them is at the end.
func atEndOfText(text string, cands []candidate, subject string) ([]candidate, *Error) {
	var atEnd []candidate
	for _, c := range cands {
		if strings.TrimSpace(text[c.end:]) == "" {
			atEnd = append(atEnd, c)
		}
	}
	if len(atEnd) == 0 && len(cands) > 0 {
		lines := linesOf(text, nonOverlappingSorted(cands))
		return nil, &Error{Code: CodeSearchNotFound, Lines: lines, Message: fmt.Sprintf(
			"the chunk ends with *** End of File, but %s matches only at %s %s, not at the end of the file (line %d is its last); remove *** End of File if the chunk is not at the end, or read the end of the file again",
			subject, pluralLines(lines), formatLines(lines), strings.Count(strings.TrimSuffix(text, "\n"), "\n")+1)}
	}
	return atEnd, nil
}

// chooseChunkPlace picks the one candidate of a chunk's old side, or the
// one its unified @@ line number chooses (RepairLineHintChose), or the one
// its anchor's distance chooses (RepairAnchorNearest, see
// chooseNearAnchor). None is search_not_found (saying so when the old side
// matches above the region), several that neither can choose among are
// ambiguous.
func chooseChunkPlace(text string, h patchHunk, r chunkRegion, cands []candidate, how string, want int, subject string) (candidate, string, *Error) {
	start := r.start
	switch {
	case len(cands) == 0:
		if before := locate(text[:start], h.old, h.new, true); start > 0 && len(before.cands) > 0 {
			lines := linesOf(text, nonOverlappingSorted(before.cands))
			return candidate{}, "", &Error{Code: CodeSearchNotFound, Lines: lines, Message: fmt.Sprintf(
				"%s was not found there, only above, at %s %s; put a file's chunks in the order their lines appear in it, and check the chunk's @@ line",
				subject, pluralLines(lines), formatLines(lines))}
		}
		return candidate{}, "", notFoundAfter(text, start, h.old, subject)
	case len(cands) == 1:
		return cands[0], "", nil
	}
	next := "add context lines, or an @@ line naming the enclosing function or class, until it matches one place"
	reason := ""
	if h.hint > 0 {
		ch := chooseByHint(text, cands, h.hint, want, "its @@ line")
		if ch.ok {
			return ch.pick, RepairLineHintChose, nil
		}
		reason = ch.reason
	}
	if len(r.ends) > 0 {
		pick, why, ok := chooseNearAnchor(text, r, cands)
		if ok {
			return pick, RepairAnchorNearest, nil
		}
		reason = joinReasons(reason, why)
	}
	if reason != "" {
		next = reason + "; " + next
	}
	return candidate{}, "", notUnique(text, cands, how, subject, next)
}

func joinReasons(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", and " + b
}

// chooseNearAnchor is the rule for a chunk's old side that matches several
// places after its anchor. Codex's apply_patch takes the first place after
// the anchor's first line; whale takes it only when the anchor's distance
// makes it the evident one: every place lies under the anchor's first line
// (no later line the anchor matches comes before any of them, so there is
// no doubt about which anchor line the model meant), and, the first place
// being d lines below that line, the next one is more than 2d+1 lines
// below it. Otherwise why says what kept it from choosing.
func chooseNearAnchor(text string, r chunkRegion, cands []candidate) (candidate, string, bool) {
	sorted := nonOverlappingSorted(cands)
	anchorLine := lineOf(text, r.ends[0].start)
	if len(r.ends) > 1 && sorted[len(sorted)-1].start >= r.ends[1].start {
		var under []int
		for _, e := range r.ends {
			under = append(under, lineOf(text, e.start))
		}
		return candidate{}, fmt.Sprintf("its @@ line %s matches lines %s, and the places fall under more than one of them, so its distance cannot tell which one is meant", visible(r.anchor), formatLines(under)), false
	}
	lines := linesOf(text, sorted)
	d0, d1 := lines[0]-anchorLine, lines[1]-anchorLine
	if d1 > 2*d0+1 {
		return sorted[0], "", true
	}
	return candidate{}, fmt.Sprintf("the first place is %d and the next %d lines below its @@ line (line %d), too close to tell which is meant", d0, d1, anchorLine), false
}

func pluralLines(lines []int) string {
	if len(lines) == 1 {
		return "line"
	}
	return "lines"
}

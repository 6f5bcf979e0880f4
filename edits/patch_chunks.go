package edits

import (
	"fmt"
	"strings"
)

// applyChunks applies a "*** Begin Patch" part's chunks to text in order, as the
// format defines: each chunk is searched in the region after the previous
// chunk of the file. Each @@ anchor must match exactly one line of its
// region (the line equal to it once blanks are ignored or, when no line is,
// the one starting with it; see findAnchorLines), and the region of the
// chunk's next anchor, and then of its old side, starts at that line, so
// that a chunk may repeat its anchor as its first context line. The old
// side goes through the same tiers as unified hunks and must match one
// place in its region (a unified line number in its @@ line may choose, by
// the rule of chooseByHint), and at the end of the text when "*** End of
// File" closed it. When the whole file holds the anchor or the old side
// more than once and the region only once, RepairAnchorScoped is reported.
// A chunk with only added lines goes right after its anchor line, or at the
// end of the file when it has none.
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
			from = res.insertChunk(h, r, &hints, trace)
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
// of its last @@ anchor's line or else the end of the previous chunk.
type chunkRegion struct {
	start int
	// afterAnchor is the end of the last anchor's line; -1 without anchors.
	afterAnchor int
	// scoped: an anchor also matches (or only matches differently) in the
	// whole file, so the region decided where it is.
	scoped bool
}

// findChunkRegion places a chunk's @@ anchors, each the one line matching
// it at or after from (the first) or the previous anchor's line (the
// others).
func findChunkRegion(text string, from int, anchors []string) (chunkRegion, *Error) {
	r := chunkRegion{start: from, afterAnchor: -1}
	for k, a := range anchors {
		pos := from
		if k > 0 {
			pos = r.afterAnchor
		}
		found := findAnchorLines(text, pos, a)
		switch {
		case len(found) == 0:
			return chunkRegion{}, anchorNotFound(text, pos, a, k > 0)
		case len(found) > 1:
			return chunkRegion{}, anchorNotUnique(text, pos, a, k > 0, found)
		}
		if pos > 0 {
			if all := findAnchorLines(text, 0, a); len(all) != 1 || all[0] != found[0] {
				r.scoped = true
			}
		}
		r.start, r.afterAnchor = found[0].start, found[0].next
	}
	return r, nil
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
// final line break missing. It returns where the chunk ends.
func (res *Applied) insertChunk(h patchHunk, r chunkRegion, hints *lineHints, trace func(placedHunk)) int {
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
	return at + len(ins)
}

// replaceChunk finds a chunk's old side in its region (at the end of the
// text with "*** End of File") and replaces it with its new side. It
// returns where the chunk ends.
func (res *Applied) replaceChunk(h patchHunk, r chunkRegion, hints *lineHints, trace func(placedHunk)) (int, *Error) {
	subject := r.subject(res.Text)
	loc := locateKeep(res.Text[r.start:], h.old, h.new, true, h.keep)
	cands := make([]candidate, len(loc.cands))
	for k, c := range loc.cands {
		c.start += r.start
		c.end += r.start
		cands[k] = c
	}
	if h.eof {
		var err *Error
		if cands, err = atEndOfText(res.Text, cands, subject); err != nil {
			return 0, err
		}
	}
	want := hints.expect(h.hint)
	pick, rule, err := chooseChunkPlace(res.Text, h, r.start, cands, loc.how, want, subject)
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
		trace(placedHunk{before: res.Text, from: r.start, cands: cands, want: want, pick: pick, rule: rule})
	}
	at, added := res.replace(pick, loc.repairs, rule)
	if scoped {
		res.Repairs = appendUnique(res.Repairs, RepairAnchorScoped)
	}
	hints.placed(h.hint, at, added, true)
	return pick.start + len(pick.replace), nil
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
// one its unified @@ line number chooses (RepairLineHintChose). None is
// search_not_found (saying so when the old side matches above the region,
// which starts at start), several that the hint cannot choose among are
// ambiguous.
func chooseChunkPlace(text string, h patchHunk, start int, cands []candidate, how string, want int, subject string) (candidate, string, *Error) {
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
	if h.hint <= 0 {
		return candidate{}, "", notUnique(text, cands, how, subject, next)
	}
	ch := chooseByHint(text, cands, h.hint, want, "its @@ line")
	if !ch.ok {
		return candidate{}, "", notUnique(text, cands, how, subject, ch.reason+"; "+next)
	}
	return ch.pick, RepairLineHintChose, nil
}

func pluralLines(lines []int) string {
	if len(lines) == 1 {
		return "line"
	}
	return "lines"
}

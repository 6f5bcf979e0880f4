package edits

import (
	"slices"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// DiffContext is the number of unchanged lines around each change in a
// rendered diff.
const DiffContext = 3

// Stat counts the lines a change added and removed.
type Stat struct {
	Added, Removed int
}

// UnifiedDiff renders the change from oldText to newText (LF texts) as a
// unified diff in git's form ("--- a/path", "+++ b/path"). An empty oldPath
// marks a created file and an empty newPath a deleted one (/dev/null). It
// returns "" when the texts are equal.
func UnifiedDiff(oldPath, newPath, oldText, newText string) (string, Stat) {
	a, b := slices.Collect(strings.Lines(oldText)), slices.Collect(strings.Lines(newText))
	hs := diffLines(a, b)
	if len(hs) == 0 && (oldPath == "" && newPath == "" || oldText == newText && oldPath != "" && newPath != "") {
		return "", Stat{}
	}
	fd := &diff.FileDiff{OrigName: "/dev/null", NewName: "/dev/null"}
	if oldPath != "" {
		fd.OrigName = "a/" + oldPath
	}
	if newPath != "" {
		fd.NewName = "b/" + newPath
	}
	var st Stat
	for _, g := range groupHunks(hs, len(a), len(b)) {
		h := &diff.Hunk{}
		var body []byte
		line := func(prefix byte, s string, fromOrig bool) {
			body = append(body, prefix)
			body = append(body, s...)
			if !strings.HasSuffix(s, "\n") {
				if fromOrig && prefix == '-' {
					body = append(body, '\n')
					h.OrigNoNewlineAt = int32(len(body))
				}
			}
		}
		ai, bi := g[0].A0-DiffContext, g[0].B0-DiffContext
		if ai < 0 || bi < 0 {
			k := min(g[0].A0, g[0].B0)
			ai, bi = g[0].A0-k, g[0].B0-k
		}
		h.OrigStartLine, h.NewStartLine = int32(ai+1), int32(bi+1)
		for _, x := range g {
			for ; ai < x.A0; ai, bi = ai+1, bi+1 {
				line(' ', a[ai], false)
			}
			for ; ai < x.A1; ai++ {
				line('-', a[ai], true)
				st.Removed++
			}
			for ; bi < x.B1; bi++ {
				line('+', b[bi], false)
				st.Added++
			}
		}
		last := g[len(g)-1]
		for k := 0; k < DiffContext && ai < len(a) && bi < len(b); k, ai, bi = k+1, ai+1, bi+1 {
			line(' ', a[ai], false)
		}
		h.OrigLines = int32(ai) - h.OrigStartLine + 1
		h.NewLines = int32(bi) - h.NewStartLine + 1
		if h.OrigLines == 0 {
			h.OrigStartLine = int32(last.A0)
		}
		if h.NewLines == 0 {
			h.NewStartLine = int32(last.B0)
		}
		// A context or added last line without "\n" needs the marker: the
		// printer adds it when the body does not end in a line break.
		if h.OrigNoNewlineAt == int32(len(body)) && len(body) > 0 && body[len(body)-1] == '\n' {
			// The orig marker comes last; the printer places it itself.
			body = body[:len(body)-1]
			h.OrigNoNewlineAt = 0
		}
		h.Body = body
		fd.Hunks = append(fd.Hunks, h)
	}
	if fd.Hunks == nil {
		// Created or deleted empty file: headers only.
		fd.Hunks = []*diff.Hunk{}
	}
	out, err := diff.PrintFileDiff(fd)
	if err != nil {
		return "", st
	}
	return string(out), st
}

// groupHunks joins hunks whose context would touch or overlap.
func groupHunks(hs []hunk, na, nb int) [][]hunk {
	var groups [][]hunk
	for _, h := range hs {
		if n := len(groups); n > 0 {
			prev := groups[n-1][len(groups[n-1])-1]
			if h.A0-prev.A1 <= 2*DiffContext {
				groups[n-1] = append(groups[n-1], h)
				continue
			}
		}
		groups = append(groups, []hunk{h})
	}
	return groups
}

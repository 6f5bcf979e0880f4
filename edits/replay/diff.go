package replay

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// hunk is one hunk of git's unified diff of a file.
type hunk struct {
	oldStart, oldCount int // 1-based first old line (0 for a new file), and count
	newStart, newCount int
	section            string // git's function heading after the second @@
	lines              []diffLine
}

// diffLine is a line of a hunk: kind ' ', '-' or '+', its text without the
// line break, and whether git marked it "\ No newline at end of file".
type diffLine struct {
	kind byte
	text string
	noNL bool
}

var hunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$`)

// parseHunks reads the hunks of git's diff of one file.
func parseHunks(diff string) ([]hunk, error) {
	var hs []hunk
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if m := hunkRE.FindStringSubmatch(l); m != nil {
			h := hunk{section: m[5]}
			h.oldStart, _ = strconv.Atoi(m[1])
			h.oldCount = count(m[2])
			h.newStart, _ = strconv.Atoi(m[3])
			h.newCount = count(m[4])
			hs = append(hs, h)
			continue
		}
		if len(hs) == 0 {
			continue // the file headers
		}
		h := &hs[len(hs)-1]
		switch {
		case strings.HasPrefix(l, `\`):
			if len(h.lines) == 0 {
				return nil, fmt.Errorf("a no-newline mark before any line")
			}
			h.lines[len(h.lines)-1].noNL = true
		case l == "":
			h.lines = append(h.lines, diffLine{kind: ' '})
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			h.lines = append(h.lines, diffLine{kind: l[0], text: l[1:]})
		default:
			return nil, fmt.Errorf("unexpected diff line %q", l)
		}
	}
	return hs, nil
}

func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// side returns a hunk's old (kinds ' ' and '-') or new (' ' and '+') text,
// each line with its line break unless git marked it without one.
func (h hunk) side(old bool) string {
	var b strings.Builder
	for _, l := range h.lines {
		if l.kind == ' ' || (old && l.kind == '-') || (!old && l.kind == '+') {
			b.WriteString(l.text)
			if !l.noNL {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// mapLines returns a copy of the hunk with each line's text passed through
// fn(kind, text).
func (h hunk) mapLines(fn func(kind byte, text string) string) hunk {
	out := h
	out.lines = make([]diffLine, len(h.lines))
	for i, l := range h.lines {
		l.text = fn(l.kind, l.text)
		out.lines[i] = l
	}
	return out
}

// touchesEnd reports whether the hunk's old side reaches the end of a file
// of n lines.
func (h hunk) touchesEnd(n int) bool {
	return h.oldStart+h.oldCount-1 >= n
}

// oldRange returns the 0-based old lines [a, b) the hunk covers.
func (h hunk) oldRange() (int, int) {
	a := h.oldStart - 1
	if h.oldCount == 0 {
		a = h.oldStart // git numbers an empty old side by the line before it
	}
	return a, a + h.oldCount
}

// newRange returns the 0-based new lines [a, b) the hunk covers.
func (h hunk) newRange() (int, int) {
	a := h.newStart - 1
	if h.newCount == 0 {
		a = h.newStart
	}
	return a, a + h.newCount
}

// splitLines splits text into lines with their line breaks.
func splitLines(text string) []string {
	return strings.SplitAfter(text, "\n")[:strings.Count(text, "\n")+btoi(!strings.HasSuffix(text, "\n") && text != "")]
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lineMap returns, for each old line of a file the hunks change, the new
// line it becomes, or -1 for a removed line, and the origin of each new
// line (the old line, or -1 for an added one).
func lineMap(hs []hunk, oldN, newN int) (toNew, fromOld []int) {
	toNew = make([]int, oldN)
	fromOld = make([]int, newN)
	for i := range toNew {
		toNew[i] = -1
	}
	for i := range fromOld {
		fromOld[i] = -1
	}
	a, b := 0, 0
	set := func(a, b int) {
		if a < oldN && b < newN {
			toNew[a], fromOld[b] = b, a
		}
	}
	for _, h := range hs {
		start, _ := h.oldRange()
		for ; a < start; a, b = a+1, b+1 {
			set(a, b)
		}
		for _, l := range h.lines {
			switch l.kind {
			case ' ':
				set(a, b)
				a, b = a+1, b+1
			case '-':
				if a < oldN {
					toNew[a] = -1
				}
				a++
			case '+':
				b++
			}
		}
	}
	for ; a < oldN; a, b = a+1, b+1 {
		set(a, b)
	}
	return toNew, fromOld
}

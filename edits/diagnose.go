package edits

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// largeSearchLines is the size above which a failed search is advised to be
// split: one wrong line fails the whole block.
const largeSearchLines = 40

// maxAnchorHits bounds how many places the diagnosis compares.
const maxAnchorHits = 2000

// notFound builds the search_not_found error with a divergence diagnosis:
// it anchors on the search's first non-blank line, finds the region of the
// file that agrees with the most following lines, and shows the first line
// where they part.
func notFound(text, search, subject string) *Error {
	return notFoundAfter(text, 0, search, subject)
}

// notFoundAfter is notFound for a search confined to text[from:]: the
// diagnosis looks only there but names lines of the whole text.
func notFoundAfter(text string, from int, search, subject string) *Error {
	sl := strings.Split(strings.TrimSuffix(search, "\n"), "\n")
	var b strings.Builder
	b.WriteString(subject + " was not found, not even ignoring whitespace, escapes, line-number prefixes or typographic quotes. ")
	b.WriteString(divergence(text[from:], sl, lineOf(text, from)-1))
	if len(splitElided(search)) > 1 {
		b.WriteString(` Its "..." line stands for lines left out, which works only when the replacement elides the same lines the same way and the lines around each elision occur once in the file; otherwise copy those lines in full.`)
	}
	if len(sl) > largeSearchLines {
		fmt.Fprintf(&b, " The search has %d lines and one wrong line fails all of them: split it into smaller edits or use multi_edit.", len(sl))
	}
	return &Error{Code: CodeSearchNotFound, Message: b.String()}
}

// divergence explains where the closest region of text stops agreeing with
// the search lines and ends with the next step. base is the number of lines
// before text in the file, added to every line number it names.
func divergence(text string, sl []string, base int) string {
	first := -1
	for j, l := range sl {
		if strings.TrimSpace(l) != "" {
			first = j
			break
		}
	}
	if first < 0 {
		return "The search holds only blank lines; include the text around the place you mean."
	}
	fileLines, starts := indexLines(text)
	trimmed := make([]string, len(sl))
	for j, l := range sl {
		trimmed[j] = strings.TrimSpace(l)
	}
	bestLine, bestAgree := -1, -1
	work := 0 // line comparisons, bounded by lineWork: past it the best so far is told
	for _, fl := range matchingLines(text, starts, trimmed[first]) {
		if work > lineWork {
			break
		}
		agree := 0
		for j := first; j < len(sl) && fl+j-first < len(fileLines); j++ {
			work++
			if strings.TrimSpace(fileLines[fl+j-first]) != trimmed[j] {
				break
			}
			agree++
		}
		if agree > bestAgree {
			bestLine, bestAgree = fl, agree
		}
	}
	if bestLine < 0 {
		// The first line is wrong: look for any later search line.
		for j := first + 1; j < len(sl); j++ {
			t := strings.TrimSpace(sl[j])
			if wordCount(t) < 2 {
				// A blank line, a lone brace or keyword is in most files
				// many times and points nowhere.
				continue
			}
			if hits := matchingLines(text, starts, t); len(hits) > 0 {
				return fmt.Sprintf("Its first line %s is not in the file; its line %d, %s, is at line %d of the file. Read the file around line %d and copy the text exactly.",
					visible(sl[first]), j+1, visible(sl[j]), base+hits[0]+1, base+hits[0]+1)
			}
		}
		if l := closestLine(fileLines, sl[first]); l >= 0 {
			return fmt.Sprintf("None of its lines is in the file; the line most like its first line is line %d, %s. Read the file around line %d and copy the text exactly.",
				base+l+1, visible(fileLines[l]), base+l+1)
		}
		return fmt.Sprintf("None of its lines is in the file (its first line is %s). Read the file again and copy the current text exactly.", visible(sl[first]))
	}
	start := base + bestLine + 1
	j := first + bestAgree
	if j >= len(sl) {
		return fmt.Sprintf("Closest match starts at line %d and every line agrees once surrounding whitespace is ignored, yet the whole block does not; read the file from line %d and copy it exactly.", start, start)
	}
	m := bestLine + bestAgree
	has := "the end of the file"
	if m < len(fileLines) {
		has = visible(fileLines[m])
	}
	agreeing := "the first line agrees"
	if bestAgree > 1 {
		agreeing = fmt.Sprintf("the first %d lines agree", bestAgree)
	}
	return fmt.Sprintf("Closest match starts at line %d; %s; at line %d the file has %s, you gave %s. Read the file from line %d and copy the text exactly.",
		start, agreeing, base+m+1, has, visible(sl[j]), start)
}

// closestLine returns the 0-based line of fileLines that shares the most
// words with want (runs of letters, digits and underscores; at least half of
// the words of the two lines together, and two or more), or -1 when none
// does. It names the line a search missed by an edit of its own — a
// parameter renamed, a result type changed — so that the model reads a few
// lines around it, not the whole file again. The scan stops after lineWork
// bytes and then answers with the best line so far.
func closestLine(fileLines []string, want string) int {
	index := map[string]int{}
	eachWord(want, func(w string) {
		if _, ok := index[w]; !ok && len(index) < 64 {
			index[w] = len(index)
		}
	})
	if len(index) < 2 {
		return -1
	}
	best, bestScore, work := -1, 0.5, 0
	for i, line := range fileLines {
		if work += len(line); work > lineWork {
			break
		}
		var seen uint64
		shared, others := 0, 0
		eachWord(line, func(w string) {
			j, ok := index[w]
			switch {
			case !ok:
				others++
			case seen&(1<<j) == 0:
				seen |= 1 << j
				shared++
			}
		})
		// Words of the line that want lacks count once each time they
		// occur: a close enough union for lines of code.
		if score := float64(shared) / float64(len(index)+others); shared >= 2 && score >= bestScore {
			if score > bestScore || best < 0 {
				best, bestScore = i, score
			}
		}
	}
	return best
}

// wordCount is the number of words of s, as eachWord splits them.
func wordCount(s string) int {
	n := 0
	eachWord(s, func(string) { n++ })
	return n
}

// eachWord calls fn with each run of letters, digits and underscores of s.
func eachWord(s string, fn func(w string)) {
	start := -1
	for i, r := range s {
		isWord := r == '_' || r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		switch {
		case isWord && start < 0:
			start = i
		case !isWord && start >= 0:
			fn(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// indexLines splits text into lines without "\n" and records where each
// starts.
func indexLines(text string) ([]string, []int) {
	n := strings.Count(text, "\n") + 1
	lines := make([]string, 0, n)
	starts := make([]int, 0, n)
	pos := 0
	for {
		starts = append(starts, pos)
		i := strings.IndexByte(text[pos:], '\n')
		if i < 0 {
			lines = append(lines, text[pos:])
			return lines, starts
		}
		lines = append(lines, text[pos:pos+i])
		pos += i + 1
	}
}

// matchingLines returns the 0-based lines whose trimmed text is t.
func matchingLines(text string, starts []int, t string) []int {
	var out []int
	eachTrimmedLine(text, t, func(ls, _ int) bool {
		out = append(out, lineIndexAt(starts, ls))
		return len(out) < maxAnchorHits
	})
	return out
}

// eachTrimmedLine calls fn with the byte span [ls, le) (without the line
// break) of every line of text whose trimmed content is t, in order, until
// fn returns false. Candidates are found with strings.Index, so a rare t
// costs about one scan of text.
func eachTrimmedLine(text, t string, fn func(ls, le int) bool) {
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], t)
		if i < 0 {
			return
		}
		off := pos + i
		ls := strings.LastIndexByte(text[:off], '\n') + 1
		le := strings.IndexByte(text[off:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += off
		}
		pos = le + 1
		if strings.TrimSpace(text[ls:le]) == t && !fn(ls, le) {
			return
		}
	}
}

// lineIndexAt finds the 0-based line that starts at byte off.
func lineIndexAt(starts []int, off int) int {
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// visible quotes a line so that tabs, carriage returns, no-break spaces and
// trailing spaces can be seen.
func visible(s string) string {
	const max = 160
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

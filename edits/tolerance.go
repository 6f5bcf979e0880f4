package edits

import (
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Repairs of the tolerances in this file.
const (
	// RepairSearchFenceRemoved: the search (and replacement) came wrapped in
	// a Markdown code fence, or led by a line naming the file.
	RepairSearchFenceRemoved = "search_wrapper_removed"
	// RepairBlankEdgesTrimmed: blank lines at the start or end of the search
	// that the file does not have were dropped.
	RepairBlankEdgesTrimmed = "blank_lines_trimmed"
	// RepairUnicodeNormalized: the search and the file were compared in
	// Unicode NFC (composed é vs e + combining accent).
	RepairUnicodeNormalized = "unicode_normalized"
	// RepairElisionKept: the search and the replacement both elided the same
	// unchanged middle with a "..." line; the file's lines there were kept.
	RepairElisionKept = "elision_kept"
)

// fileNameLine matches a first line that only names a file, as models
// write it above code: "// file: a.go", "# filepath: x/y.py", "a/b.go:".
// The name must look like a file's (an extension, or a folder): a YAML
// line such as "path: ." is content, not a wrapper.
var fileNameLine = regexp.MustCompile(`^\s*(?:(?://|#|--|;|/\*|<!--)\s*)?(?:(?i:file(?:path|name)?|path)\s*:\s*(?:[\w./-]*\w\.\w+|[\w.-]*/[\w./-]*\w)|[\w./-]+\.\w+:)\s*(?:\*/|-->)?\s*$`)

// fenceLine matches the opening or closing line of a Markdown code fence.
var fenceLine = regexp.MustCompile("^\\s*(?:```|~~~)[\\w+.#-]*\\s*$")

// unwrapSearch drops a Markdown code fence around the search and a first
// line that only names the file; the replacement loses the same wrapping
// when it has it. ok is false when there was none.
func unwrapSearch(search, replace string) (string, string, bool) {
	s, sok := unwrapText(search)
	if !sok {
		return "", "", false
	}
	if r, rok := unwrapText(replace); rok {
		replace = r
	}
	return s, replace, true
}

func unwrapText(text string) (string, bool) {
	nl := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	changed := false
	if len(lines) >= 3 && fenceLine.MatchString(lines[0]) && fenceLine.MatchString(lines[len(lines)-1]) {
		lines, changed = lines[1:len(lines)-1], true
		nl = true // the fence's own line break ends the last line
	}
	if len(lines) >= 2 && fileNameLine.MatchString(lines[0]) {
		lines, changed = lines[1:], true
	}
	if !changed {
		return "", false
	}
	out := strings.Join(lines, "\n")
	if nl {
		out += "\n"
	}
	return out, true
}

// trimBlankEdges drops blank lines at the start and the end of the search
// (keeping one final line break), and as many from the replacement's edges
// as it has. ok is false when there were none.
func trimBlankEdges(search, replace string) (string, string, bool) {
	s, lead, trail := blankEdges(search)
	if lead == 0 && trail == 0 || strings.TrimSpace(s) == "" {
		return "", "", false
	}
	if lead == 0 && strings.Trim(search[len(strings.TrimRight(search, " \t\n")):], "\n") == "" {
		return "", "", false // only extra final line breaks: the final-newline tier's case
	}
	r := replace
	rl := strings.Split(r, "\n")
	for k := 0; k < lead && len(rl) > 1 && strings.TrimSpace(rl[0]) == ""; k++ {
		rl = rl[1:]
	}
	r = strings.Join(rl, "\n")
	for k := 0; k < trail && strings.HasSuffix(r, "\n\n"); k++ {
		r = strings.TrimSuffix(r, "\n")
	}
	return s, r, true
}

// blankEdges returns text without its leading blank lines and with at most
// one final line break after its last non-blank line, and how many blank
// lines it dropped at each end.
func blankEdges(text string) (string, int, int) {
	lines := strings.Split(text, "\n")
	lead := 0
	for lead < len(lines)-1 && strings.TrimSpace(lines[lead]) == "" {
		lead++
	}
	lines = lines[lead:]
	end := len(lines)
	final := false
	if end > 0 && lines[end-1] == "" {
		end--
		final = true
	}
	trail := 0
	for end > 1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
		trail++
	}
	out := strings.Join(lines[:end], "\n")
	if final || trail > 0 {
		out += "\n"
	}
	return out, lead, trail
}

// nfcView returns text in Unicode NFC and, for each byte of it, the offset
// of the input it came from (plus one entry for the end); changed is false
// when text is NFC already.
func nfcView(text string) (string, []int, bool) {
	if norm.NFC.IsNormalString(text) {
		return text, nil, false
	}
	var b strings.Builder
	offsets := make([]int, 0, len(text)+1)
	var it norm.Iter
	it.InitString(norm.NFC, text)
	for !it.Done() {
		start := it.Pos()
		seg := it.Next()
		b.Write(seg)
		for range seg {
			offsets = append(offsets, start)
		}
	}
	offsets = append(offsets, len(text))
	return b.String(), offsets, true
}

// elisionLine matches a line that stands for lines left out: "...", "…",
// "// ...", "# ...", "/* ... */", "<!-- ... -->", optionally with words
// after the dots ("// ... rest unchanged").
var elisionLine = regexp.MustCompile(`^\s*(?://|#|--|;|/\*|<!--)?\s*(?:\.\.\.|…)[^\n]*?(?:\*/|-->)?\s*$`)

// splitElided splits text at its elision lines into the runs of lines
// between them (each run ends with its line break).
func splitElided(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	var parts []string
	var cur strings.Builder
	for _, l := range lines {
		if elisionLine.MatchString(strings.TrimSuffix(l, "\n")) {
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(l)
	}
	return append(parts, cur.String())
}

// locateElided is the elision tolerance: the search and the replacement
// both leave out the same unchanged middle with an elision line ("...",
// "// ..."), the same number of times. Each run of the search's lines must
// be found exactly, as whole lines: the first run once in the file, each
// later run once after the previous one. The candidate spans from the first
// run to the last, and its replacement keeps the file's lines in every gap
// exactly as they are. Any ambiguity, a replacement that elides a different
// number of times, or an empty run, finds nothing.
func locateElided(text, search, replace string) location {
	sp := splitElided(search)
	if len(sp) < 2 {
		return location{}
	}
	rp := splitElided(replace)
	if len(rp) != len(sp) {
		return location{}
	}
	for _, p := range sp {
		if strings.TrimSpace(p) == "" {
			return location{}
		}
	}
	var starts, ends []int
	from := 0
	for k, p := range sp {
		at := wholeLineMatches(text[from:], p)
		if len(at) != 1 || k == 0 && len(wholeLineMatches(text, p)) != 1 {
			return location{}
		}
		starts = append(starts, from+at[0])
		ends = append(ends, from+at[0]+len(p))
		from = ends[k]
	}
	var b strings.Builder
	for k, r := range rp {
		if k > 0 {
			b.WriteString(text[ends[k-1]:starts[k]])
		}
		b.WriteString(r)
	}
	c := candidate{span: span{starts[0], ends[len(ends)-1]}, replace: b.String()}
	return location{cands: []candidate{c}, repairs: []string{RepairElisionKept}, how: "keeping the lines the search elides"}
}

// wholeLineMatches returns the starts of p in text where it begins a line.
func wholeLineMatches(text, p string) []int {
	var out []int
	for _, s := range findAll(text, p) {
		if s.start == 0 || text[s.start-1] == '\n' {
			out = append(out, s.start)
		}
	}
	return out
}

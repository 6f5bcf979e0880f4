package edits

import "strings"

// fitter fits a tolerant match's replacement to the file's own bytes. It
// is made once per search: which replacement lines the model left as they
// were in its search does not depend on where the search matched.
type fitter struct {
	searchLines, replaceLines []string
	same                      []int // the search line each replacement line keeps, or -1
}

// newFitter pairs the lines of the model's search and replacement (after
// the variant's normalisation) that are equal.
func newFitter(search, replace string) *fitter {
	f := &fitter{}
	f.searchLines, _ = splitFinal(search)
	f.replaceLines, _ = splitFinal(replace)
	f.same = make([]int, len(f.replaceLines))
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
	for ; b < len(f.replaceLines) && a < len(f.searchLines); a, b = a+1, b+1 {
		f.same[b] = a
	}
	return f
}

// fitToFile returns the replacement to write over real, the matched span
// of the file, given placed, the replacement the tier produced there
// (re-indented after an indentation shift). Lines the model left as they
// were — equal in its search and replacement — are written with the
// file's bytes for the line they matched, so trailing blanks (a Markdown
// hard break), no-break spaces, curly quotes and the file's indentation on
// untouched lines survive the edit. Changed lines keep the model's text;
// after an indentation shift their indentation is the file's own for the
// same level where the matched lines show one, so tabs and spaces are not
// converted. When the lines cannot be paired one to one, placed is
// returned unchanged.
func (f *fitter) fitToFile(real, placed string) string {
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
	// Model indentation → the file's, learned from the matched lines.
	levels := map[string]string{}
	for j, s := range searchLines {
		si, sc := splitIndent(s)
		ri, rc := splitIndent(realLines[j])
		if strings.TrimSpace(sc) != "" && strings.TrimSpace(rc) != "" {
			if _, seen := levels[si]; !seen {
				levels[si] = ri
			}
		}
	}
	same := f.same
	out := make([]string, len(placedLines))
	for i, p := range placedLines {
		switch j := same[i]; {
		case j >= 0:
			out[i] = realLines[j]
		default:
			mi, rest := splitIndent(replaceLines[i])
			if fi, ok := levels[mi]; ok && strings.TrimSpace(rest) != "" && reindented {
				out[i] = fi + rest
			} else {
				out[i] = p
			}
		}
	}
	s := strings.Join(out, "\n")
	if placedNL {
		s += "\n"
	}
	return s
}

// splitFinal splits text into lines, dropping one final line break, and
// says whether there was one.
func splitFinal(text string) ([]string, bool) {
	nl := strings.HasSuffix(text, "\n")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), nl
}

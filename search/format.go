package search

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/whale-ls/whale-ls/excerpt"
)

// Shown is what Text put on screen: matching lines (content mode) or files.
type Shown struct {
	Lines, Files int
	// MoreLines and MoreFiles count what the cap left out.
	MoreLines, MoreFiles int
}

// Text renders the result for a model, applying the request's cap:
//
//	content: "path:12:text" for a match, one line each, as ripgrep prints
//	         it; with context, "path-13-text" for a context line, "--"
//	         between distant groups and a blank line between files (without
//	         context every line names its file and line, and separators
//	         would only cost the model tokens)
//	files:   one path per line
//	count:   "path: 3" per file
//
// When the cap leaves something out, the last line says how much and how to
// narrow the search.
func (r *Result) Text() (string, Shown) {
	text, sh := r.text()
	if n := len(r.TooLarge); n > 0 {
		names := strings.Join(r.TooLarge[:min(n, 5)], ", ")
		if n > 5 {
			names += fmt.Sprintf(" and %d more", n-5)
		}
		text += fmt.Sprintf("\n[not searched, %d MiB or larger: %s; search such a file with shell_run (e.g. grep -n)]", r.Request.fileSizeLimit()>>20, names)
	}
	return text, sh
}

func (r *Result) text() (string, Shown) {
	var b strings.Builder
	var sh Shown
	req := r.Request
	if len(r.Files) == 0 {
		where := "the workspace"
		if p := cleanPath(req.Path); p != "." {
			where = excerpt.Text(p)
		}
		fmt.Fprintf(&b, "No matches for %s in %s", excerpt.Quote(req.Pattern), where)
		if req.Include != "" {
			fmt.Fprintf(&b, " (include %s)", excerpt.Quote(req.Include))
		}
		b.WriteString(".")
		return b.String(), sh
	}
	switch req.Mode {
	case ModeFiles, ModeCount:
		limit := req.MaxResults
		if limit <= 0 {
			limit = DefaultMaxFiles
		}
		for _, f := range r.Files {
			if sh.Files == limit {
				break
			}
			sh.Files++
			sh.Lines += f.Count
			b.WriteString(f.Path)
			if req.Mode == ModeCount {
				b.WriteString(": ")
				b.WriteString(strconv.Itoa(f.Count))
			}
			b.WriteByte('\n')
		}
		// What is not shown, Files holding it or not (past its cap).
		sh.MoreFiles = max(r.FileCount, len(r.Files)) - sh.Files
		sh.MoreLines = max(r.Matches-sh.Lines, 0)
		switch {
		case sh.MoreFiles > 0 && req.Mode == ModeCount:
			fmt.Fprintf(&b, "[%d more files (%d matching lines) not shown; narrow with path or include, or raise max_results]\n", sh.MoreFiles, sh.MoreLines)
		case sh.MoreFiles > 0:
			fmt.Fprintf(&b, "[%d more files not shown; narrow with path or include, or raise max_results]\n", sh.MoreFiles)
		}
	default:
		limit := req.MaxResults
		if limit <= 0 {
			limit = DefaultMaxLines
		}
		for _, f := range r.Files {
			if sh.Lines >= limit || f.Lines == nil {
				sh.MoreFiles++
				sh.MoreLines += f.Count
				continue
			}
			if sh.Files > 0 && req.Context > 0 {
				b.WriteByte('\n')
			}
			sh.Files++
			// Show lines until the cap, and the context that follows the last
			// shown match up to the next match.
			prev := 0
			shownHere := 0
			for _, ln := range f.Lines {
				if ln.Match && sh.Lines >= limit {
					break
				}
				if prev > 0 && ln.Number > prev+1 && req.Context > 0 {
					b.WriteString("--\n")
				}
				sep := "-"
				if ln.Match {
					sep = ":"
					sh.Lines++
					shownHere++
				}
				b.WriteString(f.Path)
				b.WriteString(sep)
				b.WriteString(strconv.Itoa(ln.Number))
				b.WriteString(sep)
				b.WriteString(ln.Text)
				b.WriteByte('\n')
				prev = ln.Number
			}
			if rest := f.Count - shownHere; rest > 0 {
				sh.MoreLines += rest
			}
		}
		if sh.MoreLines > 0 {
			if sh.MoreFiles > 0 {
				fmt.Fprintf(&b, "\n[%d more matching lines (%d more files) not shown; narrow with path, include or a more specific pattern, use output_mode \"files\" or \"count\" for an overview, or raise max_results]\n", sh.MoreLines, sh.MoreFiles)
			} else {
				fmt.Fprintf(&b, "\n[%d more matching lines not shown; narrow with path, include or a more specific pattern, or raise max_results]\n", sh.MoreLines)
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), sh
}

func itoa(n int) string { return strconv.Itoa(n) }

func trimNL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

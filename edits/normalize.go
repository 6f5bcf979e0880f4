package edits

import (
	"strings"
	"unicode/utf8"
)

// Repair names reported when a match needed a tolerance. They are stable:
// callers pass them to the model as they are.
const (
	RepairWhitespaceNormalized = "whitespace_normalized"
	RepairJSONEscapeUnwrapped  = "json_escape_unwrapped"
	RepairIndentShifted        = "indent_shifted"
	RepairTypographyNormalized = "typography_normalized"
	RepairLineNumbersStripped  = "line_numbers_stripped"
	RepairFinalNewlineAdjusted = "final_newline_adjusted"
)

// hasEscapes reports whether s holds a literal backslash escape for a line
// break, tab or carriage return.
func hasEscapes(s string) bool {
	return strings.Contains(s, `\n`) || strings.Contains(s, `\t`) || strings.Contains(s, `\r`)
}

// unescape turns literal \n, \t, \r, \" and \\ into the characters they
// stand for, undoing one layer of JSON string escaping; other backslashes
// stay.
func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		default:
			b.WriteByte(c)
			continue
		}
		i++
	}
	return strings.ReplaceAll(strings.ReplaceAll(b.String(), "\r\n", "\n"), "\r", "\n")
}

// looksEscaped reports whether a replacement was escaped once too often: it
// has literal escapes and no real line break.
func looksEscaped(s string) bool {
	return hasEscapes(s) && !strings.Contains(s, "\n")
}

// lineNumberPrefix returns the length of a read_file line-number prefix
// ("   12\t", or "   12→" as other tools print it) at the start of line, the
// number, and whether there is one. A bare number (an empty line whose tab
// was lost) counts too.
func lineNumberPrefix(line string) (n int, num int, ok bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	d := i
	for i < len(line) && line[i] >= '0' && line[i] <= '9' && i-d < 9 {
		num = num*10 + int(line[i]-'0')
		i++
	}
	if i == d {
		return 0, 0, false
	}
	switch {
	case i == len(line):
		return i, num, true
	case line[i] == '\t':
		return i + 1, num, true
	case strings.HasPrefix(line[i:], "→"):
		return i + len("→"), num, true
	}
	return 0, 0, false
}

// stripLineNumbers removes read_file prefixes from every line of s. At least
// one line must carry a full prefix (number and separator) and text must
// remain. With consecutive set, the numbers must count up by one, which keeps
// real data such as numbered tables from being taken for prefixes.
func stripLineNumbers(s string, consecutive bool) (string, bool) {
	lines := strings.Split(s, "\n")
	last := len(lines)
	if last > 1 && lines[last-1] == "" {
		last--
	}
	prev, separated := -1, false
	for i := 0; i < last; i++ {
		n, num, ok := lineNumberPrefix(lines[i])
		if !ok {
			return s, false
		}
		if consecutive && prev >= 0 && num != prev+1 {
			return s, false
		}
		if n < len(lines[i]) || lines[i][n-1] == '\t' || strings.HasSuffix(lines[i][:n], "→") {
			separated = true
		}
		prev = num
		lines[i] = lines[i][n:]
	}
	out := strings.Join(lines, "\n")
	if !separated || strings.TrimSpace(out) == "" {
		return s, false
	}
	return out, true
}

// typographyASCII maps look-alike characters to the ASCII a programmer
// means. Every replacement is ASCII, so a normalised text is never longer
// than the original.
func typographyASCII(r rune) (string, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
		return `"`, true
	case '\u00A0', '\u2007', '\u2009', '\u202F':
		return " ", true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-", true
	case '\u2026':
		return "...", true
	}
	return "", false
}

// ASCIITypography returns s with its typographic look-alikes (curly
// quotes, primes, dashes, no-break and thin spaces, the ellipsis) written
// as the ASCII the typography tier compares them as, and whether there was
// any.
func ASCIITypography(s string) (string, bool) {
	out, _, changed := normalizeTypography(s, false)
	return out, changed
}

// mayHaveTypography is a fast filter: every look-alike starts with byte
// 0xC2 or 0xE2 in UTF-8.
func mayHaveTypography(s string) bool {
	return strings.IndexByte(s, 0xE2) >= 0 || strings.IndexByte(s, 0xC2) >= 0
}

// normalizeTypography returns s with look-alikes replaced and, when want is
// set and anything changed, the map from each byte offset of the result
// (and its end) to the offset in s.
func normalizeTypography(s string, want bool) (string, []int, bool) {
	if !mayHaveTypography(s) {
		return s, nil, false
	}
	var b strings.Builder
	var offsets []int
	changed := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		rep, ok := typographyASCII(r)
		if !ok {
			rep = s[i : i+size]
		} else {
			changed = true
		}
		if want {
			for k := 0; k < len(rep); k++ {
				offsets = append(offsets, i)
			}
		}
		b.WriteString(rep)
		i += size
	}
	if !changed {
		return s, nil, false
	}
	if want {
		offsets = append(offsets, len(s))
	}
	return b.String(), offsets, true
}

// splitIndent splits a line into its leading blanks and the rest.
func splitIndent(line string) (string, string) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return line[:i], line[i:]
}

func rstrip(s string) string { return strings.TrimRight(s, " \t") }

func indentWidth(indent string, tabWidth int) int {
	w := 0
	for i := 0; i < len(indent); i++ {
		if indent[i] == '\t' {
			w += tabWidth
		} else {
			w++
		}
	}
	return w
}

// indentShift says that every non-blank line of a matched block is indented
// delta columns more than the search's line (tabs counted as tabWidth), and
// whether the file indents that block with tabs.
type indentShift struct {
	delta    int
	tabWidth int
	tabs     bool
}

// findShift reports whether fileLines equal searchLines up to one uniform
// change of indentation.
func findShift(fileLines, searchLines []string) (indentShift, bool) {
	tabs := false
	for _, f := range fileLines {
		if strings.HasPrefix(f, "\t") {
			tabs = true
			break
		}
	}
	for _, tw := range []int{4, 8, 2} {
		sh := indentShift{tabWidth: tw, tabs: tabs}
		set, ok := false, true
		for i, f := range fileLines {
			f, s := rstrip(f), rstrip(searchLines[i])
			fi, fc := splitIndent(f)
			si, sc := splitIndent(s)
			if fc != sc {
				return indentShift{}, false
			}
			if fc == "" {
				continue
			}
			d := indentWidth(fi, tw) - indentWidth(si, tw)
			if !set {
				sh.delta, set = d, true
			} else if d != sh.delta {
				ok = false
				break
			}
		}
		if ok && set {
			return sh, true
		}
	}
	return indentShift{}, false
}

// reindent applies the shift to every non-blank line of text.
func (sh indentShift) reindent(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		ind, rest := splitIndent(l)
		if rest == "" {
			continue
		}
		w := indentWidth(ind, sh.tabWidth) + sh.delta
		if w < 0 {
			w = 0
		}
		if sh.tabs {
			lines[i] = strings.Repeat("\t", w/sh.tabWidth) + strings.Repeat(" ", w%sh.tabWidth) + rest
		} else {
			lines[i] = strings.Repeat(" ", w) + rest
		}
	}
	return strings.Join(lines, "\n")
}

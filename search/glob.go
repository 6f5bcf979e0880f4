package search

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/whale-ls/whale-ls/excerpt"
)

// GlobError is returned for an include or file-name glob that doublestar
// cannot parse (an unclosed "[" or "{").
type GlobError struct {
	Glob string
}

// Error quotes the glob.
func (e *GlobError) Error() string {
	return fmt.Sprintf("invalid glob %s: unbalanced [ ] or { }", excerpt.Quote(e.Glob))
}

// MaxGlobExpansions bounds the combinations of brace alternatives in one
// glob ("{a,b}{c,d}" has 4): matching tries them one after another, so a
// few brace sets in a row multiply the cost of every file checked.
const MaxGlobExpansions = 256

// GlobTooLargeError is returned for globs longer than MaxPatternLen bytes in
// all, or one glob with more than MaxGlobExpansions brace combinations.
type GlobTooLargeError struct {
	Glob       string // the glob over the limit ("" when the whole list is too long)
	Len        int    // bytes of the whole list
	Expansions int    // brace combinations of Glob
}

// Error names the size and the limit.
func (e *GlobTooLargeError) Error() string {
	if e.Glob != "" {
		return fmt.Sprintf("the glob %s has %d combinations of brace alternatives; a glob may have up to %d", excerpt.Quote(e.Glob), e.Expansions, MaxGlobExpansions)
	}
	return fmt.Sprintf("the globs are %d bytes; up to %d bytes are taken", e.Len, MaxPatternLen)
}

// globSet is a list of doublestar globs; a path matches when any glob does.
// A glob without "/" is matched against the file's base name, so "*.go" and
// "main.go" match at any depth; a glob with "/" is matched against the path
// relative to the root and, when different, relative to the searched folder.
type globSet struct {
	globs []glob
}

type glob struct {
	pattern string
	// base: the glob matches the base name, as name (pattern, or what
	// follows "**/" in it).
	base bool
	name string
	// fast, when set, matches the base name without doublestar: the glob
	// is a literal name, a literal with "*" before or after it or both, or
	// two literals with one "*" between them.
	fast func(name string) bool
}

// globMeta are the bytes that make a glob more than a literal.
const globMeta = "*?[]{}\\"

// fastBaseMatch returns a string test equal to matching the base-name glob
// p, when p is that simple; nil otherwise.
func fastBaseMatch(p string) func(string) bool {
	if pre, suf, ok := strings.Cut(p, "*"); ok && pre != "" && suf != "" && !strings.ContainsAny(pre+suf, globMeta) {
		// "pre*suf"
		return func(name string) bool {
			return len(name) >= len(pre)+len(suf) && strings.HasPrefix(name, pre) && strings.HasSuffix(name, suf)
		}
	}
	lead, trail := strings.HasPrefix(p, "*"), strings.HasSuffix(p, "*") && len(p) > 1
	lit := p
	if lead {
		lit = lit[1:]
	}
	if trail {
		lit = lit[:len(lit)-1]
	}
	if strings.ContainsAny(lit, globMeta) {
		return nil
	}
	switch {
	case lead && trail:
		return func(name string) bool { return strings.Contains(name, lit) }
	case lead:
		return func(name string) bool { return strings.HasSuffix(name, lit) }
	case trail:
		return func(name string) bool { return strings.HasPrefix(name, lit) }
	}
	return func(name string) bool { return name == lit }
}

// parseGlobs splits s at commas outside brace sets ("*.go, **/*.{ts,tsx}")
// and validates each part. An empty s gives a nil set, which matches
// everything.
func parseGlobs(s string) (*globSet, error) {
	if len(s) > MaxPatternLen {
		return nil, &GlobTooLargeError{Len: len(s)}
	}
	var parts []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[last:i])
				last = i + 1
			}
		}
	}
	parts = append(parts, s[last:])
	var set globSet
	for _, p := range parts {
		p = strings.TrimSpace(p)
		p = strings.TrimPrefix(p, "./")
		p = strings.TrimLeft(p, "/")
		if p == "" {
			continue
		}
		if strings.HasSuffix(p, "/") {
			// A folder: everything below it.
			p += "**"
		}
		if !doublestar.ValidatePattern(p) {
			return nil, &GlobError{Glob: p}
		}
		if n := braceExpansions(p); n > MaxGlobExpansions {
			return nil, &GlobTooLargeError{Glob: p, Len: len(s), Expansions: n}
		}
		gl := glob{pattern: p, base: !strings.Contains(p, "/"), name: p}
		// "**/x" with no other "/" matches what "x" matches against the
		// base name: "**" takes any folders, "x" the last part.
		if rest, ok := strings.CutPrefix(p, "**/"); ok && !strings.Contains(rest, "/") && rest != "**" {
			gl.base, gl.name = true, rest
		}
		if gl.base {
			gl.fast = fastBaseMatch(gl.name)
		}
		set.globs = append(set.globs, gl)
	}
	if len(set.globs) == 0 {
		return nil, nil
	}
	return &set, nil
}

// braceExpansions counts the combinations of brace alternatives in p, up
// to a little more than MaxGlobExpansions.
func braceExpansions(p string) int {
	n, _ := expansionsFrom(p, 0, false)
	return n
}

// expansionsFrom counts the combinations of the sequence that starts at i
// and ends at the end of p or, inside a brace set, at its next "," or "}";
// it returns the count and where the sequence ended.
func expansionsFrom(p string, i int, inSet bool) (int, int) {
	const ceiling = MaxGlobExpansions * 4
	total := 1
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
			continue
		case '{':
			alts, j := 0, i+1
			for {
				n, k := expansionsFrom(p, j, true)
				alts = min(alts+n, ceiling)
				j = k + 1
				if k >= len(p) || p[k] == '}' {
					break
				}
			}
			total = min(total*alts, ceiling)
			i = j
			continue
		case ',', '}':
			if inSet {
				return total, i
			}
		}
		i++
	}
	return total, i
}

// match reports whether a file matches. rel is relative to the root, sub to
// the searched folder, name is the base name.
func (g *globSet) match(rel, sub, name string) bool {
	if g == nil {
		return true
	}
	for _, gl := range g.globs {
		if gl.base {
			if gl.matchName(name) {
				return true
			}
			continue
		}
		if doublestar.MatchUnvalidated(gl.pattern, rel) || (sub != rel && doublestar.MatchUnvalidated(gl.pattern, sub)) {
			return true
		}
	}
	return false
}

// nameOnly reports whether every glob matches the base name alone, so that
// matchName decides.
func (g *globSet) nameOnly() bool {
	for _, gl := range g.globs {
		if !gl.base {
			return false
		}
	}
	return true
}

// matchName is match for a set whose globs all match the base name (nil
// matches everything).
func (g *globSet) matchName(name string) bool {
	if g == nil {
		return true
	}
	for _, gl := range g.globs {
		if gl.matchName(name) {
			return true
		}
	}
	return false
}

// matchName matches a base-name glob.
func (gl *glob) matchName(name string) bool {
	if gl.fast != nil {
		return gl.fast(name)
	}
	return doublestar.MatchUnvalidated(gl.name, name)
}

// String lists the globs as given, for messages.
func (g *globSet) String() string {
	if g == nil {
		return ""
	}
	var ps []string
	for _, gl := range g.globs {
		ps = append(ps, gl.pattern)
	}
	return strings.Join(ps, ",")
}

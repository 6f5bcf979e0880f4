package search

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// GlobError is returned for an include or file-name glob that doublestar
// cannot parse (an unclosed "[" or "{").
type GlobError struct {
	Glob string
}

// Error quotes the glob.
func (e *GlobError) Error() string {
	return fmt.Sprintf("invalid glob %q: unbalanced [ ] or { }", e.Glob)
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
	base    bool
}

// parseGlobs splits s at commas outside brace sets ("*.go, **/*.{ts,tsx}")
// and validates each part. An empty s gives a nil set, which matches
// everything.
func parseGlobs(s string) (*globSet, error) {
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
		set.globs = append(set.globs, glob{pattern: p, base: !strings.Contains(p, "/")})
	}
	if len(set.globs) == 0 {
		return nil, nil
	}
	return &set, nil
}

// match reports whether a file matches. rel is relative to the root, sub to
// the searched folder, name is the base name.
func (g *globSet) match(rel, sub, name string) bool {
	if g == nil {
		return true
	}
	for _, gl := range g.globs {
		if gl.base {
			if doublestar.MatchUnvalidated(gl.pattern, name) {
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

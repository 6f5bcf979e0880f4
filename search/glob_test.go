package search

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"
)

func TestParseGlobs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"*.go", []string{"*.go"}},
		{"*.go, **/*.{ts,tsx} ,./src/*.c", []string{"*.go", "**/*.{ts,tsx}", "src/*.c"}},
		{"/abs/*.md,docs/", []string{"abs/*.md", "docs/**"}},
		{`a\,b,c`, []string{`a\,b`, "c"}},
	} {
		g, err := parseGlobs(tc.in)
		if err != nil {
			t.Fatalf("parseGlobs(%q): %v", tc.in, err)
		}
		var got []string
		if g != nil {
			for _, gl := range g.globs {
				got = append(got, gl.pattern)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseGlobs(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{"*.{go", "[a-"} {
		if _, err := parseGlobs(bad); err == nil {
			t.Errorf("parseGlobs(%q) = nil error, want a *GlobError", bad)
		}
	}
}

func TestComparePathsIsFolderOrder(t *testing.T) {
	t.Parallel()
	paths := []string{"a-b/x", "a/z", "a/b/c", "a.go", "a", "B", "a/b"}
	slices.SortFunc(paths, comparePaths)
	want := []string{"B", "a", "a/b", "a/b/c", "a/z", "a-b/x", "a.go"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("sorted paths mismatch (-want +got):\n%s", diff)
	}
}

func TestGlobLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		globs string
		ok    bool
	}{
		{"*.{go,ts}", true},
		{strings.Repeat("{a,b}", 8), true}, // 256
		{strings.Repeat("{a,b}", 9), false},
		{strings.Repeat("{*,**/}", 40) + "c", false},
		{"{a,{b,{c,d}}}{e,f}", true},
		{strings.Repeat("x", MaxPatternLen+1), false},
	} {
		_, err := parseGlobs(tc.globs)
		var tl *GlobTooLargeError
		if tc.ok != (err == nil) || (err != nil && !errors.As(err, &tl)) {
			t.Errorf("parseGlobs(%d bytes %.20q) = %v, want ok %v or a *GlobTooLargeError", len(tc.globs), tc.globs, err, tc.ok)
		}
	}
	if n := braceExpansions("{a,{b,{c,d}}}{e,f}"); n != 8 {
		t.Errorf("braceExpansions = %d, want 8", n)
	}
}

// TestGlobShortcutsAgreeWithDoublestar checks the string tests that stand in
// for doublestar on simple globs (a literal with "*" around it, "**/" before
// a base-name glob) against doublestar itself.
func TestGlobShortcutsAgreeWithDoublestar(t *testing.T) {
	t.Parallel()
	paths := []string{"main.go", "a/main.go", "a/b/main_test.go", ".hidden_test.go", "a/.git_x/y.go", "x_test.go/z",
		"README", "docs/README.md", "a/b/c/READMEX", "test", "a/test", "a/b/atestb", "*.go", "a/?.go", "gó/ñ.go"}
	globs := []string{"*.go", "*_test.go", "a*.go", "ma*n.go", "**/x_*.go", "RE*ME", "a*a", "**/*_test.go", "main.go", "**/main.go", "README*", "**/README*", "*test*",
		"**/*test*", "test", "**/test", "*", "**/*", "**/*.{go,md}", "**/?.go", "a/**/*.go", "**/b/*.go", "*.GO", "ñ.go", "**/ñ.go"}
	for _, g := range globs {
		set, err := parseGlobs(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			name := p[strings.LastIndexByte(p, '/')+1:]
			want := doublestar.MatchUnvalidated(g, p)
			if !strings.Contains(g, "/") {
				want = doublestar.MatchUnvalidated(g, name)
			}
			if got := set.match(p, p, name); got != want {
				t.Errorf("glob %q on %q: %v, doublestar says %v", g, p, got, want)
			}
		}
	}
}

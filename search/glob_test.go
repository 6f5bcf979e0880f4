package search

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGlobs(t *testing.T) {
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
	paths := []string{"a-b/x", "a/z", "a/b/c", "a.go", "a", "B", "a/b"}
	slices.SortFunc(paths, comparePaths)
	want := []string{"B", "a", "a/b", "a/b/c", "a/z", "a-b/x", "a.go"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("sorted paths mismatch (-want +got):\n%s", diff)
	}
}

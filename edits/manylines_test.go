package edits

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestLocateManyLinesAgrees: the linear whole-line matcher finds the same
// places, replacements and repairs as the anchor-based one, on random texts
// of few distinct lines (where both apply).
func TestLocateManyLinesAgrees(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", " a", "a ", "\ta", "b", "  b  ", "", "c"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[r.IntN(len(pieces))])
			b.WriteByte('\n')
		}
		s := b.String()
		if r.IntN(3) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := range 3000 {
		text, search := gen(1+r.IntN(30)), gen(1+r.IntN(4))
		sl := strings.Split(strings.TrimSuffix(search, "\n"), "\n")
		trimmed := make([]string, len(sl))
		blank := true
		for j, l := range sl {
			trimmed[j] = strings.TrimSpace(l)
			blank = blank && trimmed[j] == ""
		}
		if blank {
			continue
		}
		want := locateLines(text, search, "X\n")
		got := locateManyLines(text, sl, trimmed, "X\n", strings.HasSuffix(search, "\n"))
		if len(want.cands) == 0 && len(got.cands) == 0 {
			continue
		}
		if !reflect.DeepEqual(got.cands, want.cands) || got.how != want.how {
			t.Fatalf("case %d: text %q search %q:\nlinear %v (%s %v)\nanchor %v (%s %v)", i, text, search, got.cands, got.how, got.repairs, want.cands, want.how, want.repairs)
		}
	}
}

// TestRepetitiveSearchesAreBounded: searches of repeated lines or bytes
// against a file of the same repeated lines finish (before this, each took
// minutes: every anchor hit compared the whole search).
func TestRepetitiveSearchesAreBounded(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("a\n", 500_000)
	for _, e := range []Edit{
		{Search: strings.Repeat("a\n", 100_000) + "b\n", Replace: "x"},
		{Search: strings.Repeat(" a\n", 100_000) + "b\n", Replace: "x"},
		{Search: strings.Repeat("a\n", 100_000), Replace: "x"},
		{Search: strings.Repeat("  a\n", 100_000), Replace: "x"},
	} {
		start := time.Now()
		_, err := Apply(text, e)
		if c := CodeOf(err); c != CodeSearchNotFound && c != CodeSearchNotUnique {
			t.Errorf("Apply(%q… %d bytes) = %v, want not found or not unique", e.Search[:8], len(e.Search), err)
		}
		t.Logf("%q… (%d bytes): %v in %v", e.Search[:8], len(e.Search), CodeOf(err), time.Since(start))
	}
	line := strings.Repeat("a", 1<<20)
	if _, err := Apply(line, Edit{Search: strings.Repeat("a", 300_000), Replace: "b"}); CodeOf(err) != CodeSearchNotUnique {
		t.Errorf("periodic exact search = %v, want not unique", err)
	}
}

package edits

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// applyTextEdits applies sorted, non-overlapping edits to text.
func applyTextEdits(t *testing.T, text string, edits []TextEdit) string {
	t.Helper()
	lines := splitTerminated(text)
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	offset := func(p Pos) int {
		if p.Line > len(lines) {
			t.Fatalf("position %+v past the end of %q", p, text)
		}
		return starts[p.Line] + p.Col
	}
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		s, en := offset(e.Start), offset(e.End)
		if s < pos || en < s || en > len(text) {
			t.Fatalf("edit %+v out of order or range in %q", e, text)
		}
		b.WriteString(text[pos:s])
		b.WriteString(e.NewText)
		pos = en
	}
	b.WriteString(text[pos:])
	return b.String()
}

func TestMinimalEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		old, new string
		want     []TextEdit
	}{
		{"one word", "hello world\n", "hello there\n", []TextEdit{{Start: Pos{Line: 0, Col: 6}, End: Pos{Line: 0, Col: 11}, NewText: "there"}}},
		{"insert line", "a\nc\n", "a\nb\nc\n", []TextEdit{{Start: Pos{Line: 1, Col: 0}, End: Pos{Line: 1, Col: 0}, NewText: "b\n"}}},
		{"delete line", "a\nb\nc\n", "a\nc\n", []TextEdit{{Start: Pos{Line: 1, Col: 0}, End: Pos{Line: 2, Col: 0}, NewText: ""}}},
		{"crlf kept whole", "a\r\nb\r\n", "a\r\nx\r\nb\r\n", []TextEdit{{Start: Pos{Line: 1, Col: 0}, End: Pos{Line: 1, Col: 0}, NewText: "x\r\n"}}},
		{"crlf to lf", "a\r\nb\r\n", "a\nb\r\n", []TextEdit{{Start: Pos{Line: 0, Col: 1}, End: Pos{Line: 1, Col: 0}, NewText: "\n"}}},
		{"multibyte boundary", "x é y\n", "x è y\n", []TextEdit{{Start: Pos{Line: 0, Col: 2}, End: Pos{Line: 0, Col: 4}, NewText: "è"}}},
		{"two lines changed separately", "a1\nb\nc1\n", "a2\nb\nc2\n", []TextEdit{{Start: Pos{Line: 0, Col: 1}, End: Pos{Line: 0, Col: 2}, NewText: "2"}, {Start: Pos{Line: 2, Col: 1}, End: Pos{Line: 2, Col: 2}, NewText: "2"}}},
		{"append at end without newline", "a", "ab", []TextEdit{{Start: Pos{Line: 0, Col: 1}, End: Pos{Line: 0, Col: 1}, NewText: "b"}}},
		{"equal", "same", "same", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MinimalEdits(tc.old, tc.new)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("MinimalEdits(%q, %q) (-want +got):\n%s", tc.old, tc.new, diff)
			}
			if out := applyTextEdits(t, tc.old, got); out != tc.new {
				t.Errorf("applying edits gives %q, want %q", out, tc.new)
			}
		})
	}
}

func FuzzMinimalEdits(f *testing.F) {
	f.Add("a\r\nb\r\n", "a\nb\r\nc")
	f.Add("x é y\n", "x è y\n")
	f.Add("one\rtwo\r", "one\r\ntwo\n")
	f.Add("😀\n", "😁\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		edits := MinimalEdits(old, new)
		if out := applyTextEdits(t, old, edits); out != new {
			t.Fatalf("MinimalEdits(%q, %q) applied = %q", old, new, out)
		}
		if !utf8.ValidString(old) || !utf8.ValidString(new) {
			return
		}
		lines := splitTerminated(old)
		for _, e := range edits {
			if !utf8.ValidString(e.NewText) {
				t.Fatalf("edit %+v splits a character", e)
			}
			for _, p := range []Pos{e.Start, e.End} {
				if p.Line < len(lines) {
					l := lines[p.Line]
					if p.Col > 0 && p.Col < len(l) && (!utf8.RuneStart(l[p.Col]) || l[p.Col-1] == '\r' && l[p.Col] == '\n') {
						t.Fatalf("position %+v splits %q", p, l)
					}
				}
			}
		}
	})
}

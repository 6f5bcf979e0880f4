package lsp

import (
	"testing"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestPositions(t *testing.T) {
	text := "a😀b\r\nsé\rx\n\nlast"
	for _, tc := range []struct {
		pos    Position
		enc    string
		offset int
	}{
		{Position{0, 0}, encUTF16, 0},
		{Position{0, 1}, encUTF16, 1},
		{Position{0, 2}, encUTF16, 1}, // inside the surrogate pair: rounds down
		{Position{0, 3}, encUTF16, 5},
		{Position{0, 4}, encUTF16, 6},  // end of line, before \r\n
		{Position{0, 99}, encUTF16, 6}, // past the end of the line
		{Position{1, 0}, encUTF16, 8},
		{Position{1, 2}, encUTF16, 11},
		{Position{2, 0}, encUTF16, 12}, // after a lone \r
		{Position{3, 0}, encUTF16, 14},
		{Position{4, 2}, encUTF16, 17},
		{Position{9, 0}, encUTF16, len(text)},
		{Position{0, 5}, encUTF8, 5},
		{Position{0, 3}, encUTF8, 1}, // inside a character: rounds down
		{Position{1, 3}, encUTF8, 11},
		{Position{0, 2}, encUTF32, 5},
	} {
		if got := offsetOf(text, tc.pos, tc.enc); got != tc.offset {
			t.Errorf("offsetOf(%+v, %s) = %d, want %d", tc.pos, tc.enc, got, tc.offset)
		}
	}
	for _, off := range []int{0, 1, 5, 6, 8, 11, 12, 14, 17, len(text)} {
		for _, enc := range []string{encUTF8, encUTF16, encUTF32} {
			if got := offsetOf(text, positionOf(text, off, enc), enc); got != off {
				t.Errorf("offsetOf(positionOf(%d, %s)) = %d", off, enc, got)
			}
		}
	}
}

func TestTextEdits(t *testing.T) {
	for _, tc := range []struct{ old, new string }{
		{"hello world\n", "hello there world\n"},
		{"a\r\nb\r\n", "a\r\nc\r\n"},
		{"😀😀", "😀😁"},
		{"same", "same"},
		{"", "new"},
		{"gone", ""},
		{"x\r\ny", "x\ny"},
		{"one\ntwo\nthree\nfour\n", "one\n2\nthree\nFOUR\n"},
		{"a😀b\r\nc\r\n", "a😀B\r\nc\r\nd\r\n"},
	} {
		var minimal []toolbridge.TextEdit
		for _, e := range edits.MinimalEdits(tc.old, tc.new) {
			minimal = append(minimal, toolbridge.TextEdit{Start: toolbridge.Pos(e.Start), End: toolbridge.Pos(e.End), NewText: e.NewText})
		}
		es := lspEdits(tc.old, minimal, encUTF16)
		got := tc.old
		// LSP edits all refer to the original text: apply from the end.
		for i := len(es) - 1; i >= 0; i-- {
			e := es[i]
			start, end := offsetOf(tc.old, e.Range.Start, encUTF16), offsetOf(tc.old, e.Range.End, encUTF16)
			got = got[:start] + e.NewText + got[end:]
		}
		if got != tc.new {
			t.Errorf("applying lspEdits of MinimalEdits(%q, %q) = %q", tc.old, tc.new, got)
		}
	}
}

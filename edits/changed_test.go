package edits

import "testing"

func TestChangedLines(t *testing.T) {
	t.Parallel()
	old := "a\nb\nc\nd\ne\n"
	for _, tc := range []struct {
		name, new   string
		first, last int
		from, to    int
		ok          bool
	}{
		{"line changed", "a\nb\nC\nd\ne\n", 3, 3, 3, 3, true},
		{"moved down by an insert above", "x\ny\na\nb\nC\nd\ne\n", 3, 3, 5, 5, true},
		{"untouched", "A\nb\nc\nd\ne\n", 3, 4, 0, 0, false},
		{"deleted", "a\nb\nd\ne\n", 3, 3, 3, 2, true},
		{"two of three changed", "a\nB\nc\nD\ne\n", 2, 4, 2, 4, true},
		{"insert inside", "a\nb\nnew\nc\nd\ne\n", 2, 3, 3, 3, true},
		{"insert after is outside", "a\nb\nc\nnew\nd\ne\n", 2, 3, 0, 0, false},
	} {
		from, to, ok := ChangedLines(old, tc.new, tc.first, tc.last)
		if ok != tc.ok || ok && (from != tc.from || to != tc.to) {
			t.Errorf("%s: ChangedLines(%d, %d) = %d, %d, %v; want %d, %d, %v", tc.name, tc.first, tc.last, from, to, ok, tc.from, tc.to, tc.ok)
		}
	}
}

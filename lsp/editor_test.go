package lsp

import "testing"

func TestAppliedText(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		ok        bool
	}{
		{"a\nB\n", "a\nB\n", true},
		{"a\nB\n", "a\nB", true}, // the editor keeps its buffer's final newline
		{"a\nB", "a\nB\n", false},
		{"a\nB\n\n", "a\nB", false},
		{"a\nb\n", "a\nB", false},
		{"\n", "", true},
	} {
		if got := appliedText(tc.got, tc.want); got != tc.ok {
			t.Errorf("appliedText(%q, %q) = %v, want %v", tc.got, tc.want, got, tc.ok)
		}
	}
}

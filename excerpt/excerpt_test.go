package excerpt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuoteAndText(t *testing.T) {
	long := strings.Repeat("é", 600) // 1200 bytes
	for _, tc := range []struct {
		in, quote, text string
	}{
		{"a.go", `"a.go"`, "a.go"},
		{"tab\there", `"tab\there"`, "tab\there"},
		{strings.Repeat("x", Limit), `"` + strings.Repeat("x", Limit) + `"`, strings.Repeat("x", Limit)},
		{strings.Repeat("x", 1<<20), `"` + strings.Repeat("x", Limit) + `…" (1048576 bytes)`, strings.Repeat("x", Limit) + "… (1048576 bytes)"},
		{long, `"` + strings.Repeat("é", Limit/2) + `…" (1200 bytes)`, strings.Repeat("é", Limit/2) + "… (1200 bytes)"},
		{"x" + long, `"x` + strings.Repeat("é", (Limit-1)/2) + `…" (1201 bytes)`, "x" + strings.Repeat("é", (Limit-1)/2) + "… (1201 bytes)"},
	} {
		if got := Quote(tc.in); got != tc.quote {
			t.Errorf("Quote(%d bytes) = %q, want %q", len(tc.in), got, tc.quote)
		}
		if got := Text(tc.in); got != tc.text || !utf8.ValidString(got) {
			t.Errorf("Text(%d bytes) = %q, want %q", len(tc.in), got, tc.text)
		}
	}
}

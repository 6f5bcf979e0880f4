package toolbridge

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/excerpt"
)

// TestQuoteInputIsExcerpts: the contract words model input as every other
// layer does.
func TestQuoteInputIsExcerpts(t *testing.T) {
	t.Parallel()
	if inputLimit != excerpt.Limit {
		t.Fatalf("inputLimit = %d, excerpt.Limit = %d", inputLimit, excerpt.Limit)
	}
	for _, s := range []string{"", "short", "tab\there", strings.Repeat("x", 200), strings.Repeat("x", 201), strings.Repeat("é", 150), strings.Repeat("😀", 60) + "\n"} {
		if got, want := quoteInput(s), excerpt.Quote(s); got != want {
			t.Errorf("quoteInput(%d bytes) = %q, excerpt.Quote = %q", len(s), got, want)
		}
		if got, want := textInput(s), excerpt.Text(s); got != want {
			t.Errorf("textInput(%d bytes) = %q, excerpt.Text = %q", len(s), got, want)
		}
	}
}

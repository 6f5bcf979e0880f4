package edits

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// quoteLimit is how much of a model's input an error message quotes.
const quoteLimit = 200

// Quote renders s for a message the model reads: Go-quoted, and when it is
// longer than about 200 bytes, its start, an ellipsis and its length
// (`"abc"… (1048576 bytes)`), so that an error never echoes a huge input.
func Quote(s string) string {
	if len(s) <= quoteLimit {
		return strconv.Quote(s)
	}
	cut := quoteLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

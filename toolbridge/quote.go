package toolbridge

import (
	"strconv"
	"unicode/utf8"
)

// inputLimit is how many bytes of a model's input the contract's own
// messages repeat: package excerpt's Limit, restated here because the
// contract imports nothing of whale (quote_test.go keeps the two equal).
const inputLimit = 200

// quoteInput is s Go-quoted; a longer s is cut to inputLimit bytes on a
// character boundary, marked "…" inside the quotes and followed by its
// length, as excerpt.Quote does.
func quoteInput(s string) string {
	head, n := cutInput(s)
	if n < 0 {
		return strconv.Quote(s)
	}
	return strconv.Quote(head+"…") + " (" + strconv.Itoa(n) + " bytes)"
}

// textInput is quoteInput without the quotes, as excerpt.Text.
func textInput(s string) string {
	head, n := cutInput(s)
	if n < 0 {
		return s
	}
	return head + "… (" + strconv.Itoa(n) + " bytes)"
}

// cutInput returns at most inputLimit bytes of s and the length of s, or
// s itself and -1 when it is short enough.
func cutInput(s string) (string, int) {
	if len(s) <= inputLimit {
		return s, -1
	}
	end := inputLimit
	for !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end], len(s)
}

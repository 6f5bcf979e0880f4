// Package excerpt shortens what a model sent before a message repeats it.
// An error that echoes a 1 MB path costs the model more than the path did,
// and hides the one sentence that says what to do; every message that
// quotes model input goes through Quote or Text, which keep at most Limit
// bytes of it and say how long the whole was.
//
// It is a leaf package (standard library only) so that every layer that
// words messages — workspace, search, web, toolbridge — can share it
// without importing the others.
package excerpt

import (
	"strconv"
	"unicode/utf8"
)

// Limit is how many bytes of a model's input a message repeats.
const Limit = 200

// Quote returns s as a Go-quoted string. A string longer than Limit bytes
// is cut on a character boundary, the cut marked with "…" inside the
// quotes, and followed by its length: "very-long-prefix…" (1048576 bytes).
func Quote(s string) string {
	head, cut := clip(s)
	if !cut {
		return strconv.Quote(s)
	}
	return strconv.Quote(head+"…") + " (" + strconv.Itoa(len(s)) + " bytes)"
}

// Text is Quote without the quotes, for messages that name a path or a
// value in plain prose: s itself when it is short, otherwise
// very-long-prefix… (1048576 bytes). Control characters of a long s are
// kept as they are, so callers use Quote where s may hold them.
func Text(s string) string {
	head, cut := clip(s)
	if !cut {
		return s
	}
	return head + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// clip cuts s to at most Limit bytes without splitting a character.
func clip(s string) (string, bool) {
	if len(s) <= Limit {
		return s, false
	}
	cut := Limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

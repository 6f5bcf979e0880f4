package terminal

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxLine is how long an unterminated line may grow before it is committed
// to the model buffer as it is.
const maxLine = 8 << 10

// Escape-sequence states of the model-text filter.
const (
	stNormal    = iota
	stEsc       // after ESC
	stEscInter  // after ESC and intermediate bytes, waiting for the final byte
	stCSI       // inside ESC [ ... final
	stString    // inside OSC/DCS/APC/PM/SOS, until BEL or ESC \
	stStringEsc // ESC seen inside a string
)

// textFilter turns raw terminal bytes into the text a model reads: escape
// sequences and control characters removed, carriage-return redraws collapsed
// to the last version of the line, backspaces applied. Complete lines go to
// the ring; the line being written stays in line until it ends.
type textFilter struct {
	out       *ring
	state     int
	line      []byte
	pendingCR bool
	lineGen   int64 // increments each time line is reset
}

func (f *textFilter) resetLine() {
	f.line = f.line[:0]
	f.lineGen++
}

func (f *textFilter) commitLine(nl bool) {
	if nl {
		f.line = append(f.line, '\n')
	}
	f.out.write(f.line)
	f.resetLine()
	f.pendingCR = false
}

// isControl marks the bytes the filter acts on or drops: C0 controls and DEL.
var isControl = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t[0x7f] = true
	return t
}()

// cutLong commits a line that reached maxLine, keeping an incomplete
// character at its end for the next part.
func (f *textFilter) cutLong() {
	if len(f.line) < maxLine {
		return
	}
	cut := completePrefix(f.line)
	rest := append([]byte(nil), f.line[cut:]...)
	f.line = f.line[:cut]
	f.commitLine(false)
	f.line = append(f.line, rest...)
}

// write feeds raw output through the filter.
func (f *textFilter) write(p []byte) {
	for i := 0; i < len(p); {
		b := p[i]
		switch f.state {
		case stNormal:
			if b >= 0x20 && b != 0x7f {
				j := i + 1
				for j < len(p) && !isControl[p[j]] {
					j++
				}
				if f.pendingCR {
					f.resetLine()
					f.pendingCR = false
				}
				// Fill the line up to maxLine at a time, so that where a
				// long line is cut depends on the text, not on the reads.
				for i < j {
					f.cutLong()
					k := min(j, i+maxLine-len(f.line))
					f.line = append(f.line, p[i:k]...)
					i = k
				}
				f.cutLong()
				i = j
				continue
			}
			switch b {
			case '\n':
				f.commitLine(true)
			case '\r':
				f.pendingCR = true
			case '\t':
				if f.pendingCR {
					f.resetLine()
					f.pendingCR = false
				}
				f.line = append(f.line, '\t')
				f.cutLong()
			case '\b':
				if n := len(f.line); n > 0 {
					_, size := utf8.DecodeLastRune(f.line)
					f.line = f.line[:n-size]
				}
			case 0x1b:
				f.state = stEsc
			}
		case stEsc:
			switch {
			case b == '[':
				f.state = stCSI
			case b == ']' || b == 'P' || b == '_' || b == '^' || b == 'X':
				f.state = stString
			case b >= 0x20 && b <= 0x2f:
				f.state = stEscInter
			default:
				f.state = stNormal
			}
		case stEscInter:
			if b < 0x20 || b > 0x2f {
				f.state = stNormal
			}
		case stCSI:
			if b >= 0x40 && b <= 0x7e {
				f.state = stNormal
			}
		case stString:
			if b == 0x07 {
				f.state = stNormal
			} else if b == 0x1b {
				f.state = stStringEsc
			}
		case stStringEsc:
			if b == '\\' {
				f.state = stNormal
			} else if b != 0x1b {
				f.state = stString
			}
		}
		i++
	}
}

// partial returns the unterminated line without a trailing incomplete
// character.
func (f *textFilter) partial() []byte {
	return f.line[:completePrefix(f.line)]
}

// completePrefix is the length of b without a trailing incomplete UTF-8
// character (invalid bytes count as complete: they are replaced later).
func completePrefix(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return len(b)
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-i:]) {
				return len(b)
			}
			return len(b) - i
		}
	}
	return len(b)
}

// Sizes of the head and tail a model sees of long output.
const (
	modelHead = 8 << 10
	modelTail = 24 << 10
)

// compactText keeps the head and the tail of long text, cut at line
// boundaries where possible, with a marker saying what was left out.
func compactText(s string, head, tail int) string {
	if len(s) <= head+tail+256 {
		return s
	}
	h := s[:head]
	if i := strings.LastIndexByte(h, '\n'); i > head/2 {
		h = h[:i+1]
	}
	h = h[:completePrefix([]byte(h))]
	t := s[len(s)-tail:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < tail/2 {
		t = t[i+1:]
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	mid := s[len(h) : len(s)-len(t)]
	lines := strings.Count(mid, "\n")
	marker := fmt.Sprintf("\n[... %d bytes (%d lines) omitted from the middle of the output ...]\n", len(mid), lines)
	return strings.TrimSuffix(h, "\n") + marker + t
}

// validText makes b valid UTF-8 text, replacing invalid bytes.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// hostileLine is a 256 KiB line of random bytes from alphabet, ending in
// "c": long enough for the automaton to judge it (see dfaFrom) and for the
// exponential pattern to reach the work limit.
func hostileLine(alphabet string) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 256<<10)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	b[len(b)-1] = 'c'
	return b
}

// hostilePatterns cost pattern size × line length in Go's regexp (a minute
// and more on a 1 MB line), or build an automaton that grows with the text
// ("exponential", whose line is only a and b).
var hostilePatterns = []struct {
	name, pattern string
	matches       bool
}{
	{"classes", strings.Repeat(`[ab ]`, 800) + `\d`, false},
	{"words", strings.Repeat(`\w+ `, 1000), false},
	{"dotstar", strings.Repeat(`.*a`, 1300), true},
	{"alternation", "(" + strings.Repeat("ab|ba|a b|", 400) + "x)", true},
	{"repeats", strings.Repeat(`[ab ]{1,9}`, 400), true},
	{"exponential", `[ab]*a[ab]{500}c`, false},
}

// TestHostilePatternsAreBounded: patterns at the size limit against a long
// line are judged by the automaton, which either answers or gives up with
// *WorkLimitError; the exponential one must give up. Durations are logged,
// not asserted.
func TestHostilePatternsAreBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range hostilePatterns {
		line := hostileLine("ab ab")
		if tc.name == "exponential" {
			line = hostileLine("ab")
		}
		m, err := compilePattern(tc.pattern, false, false)
		if err != nil {
			t.Fatalf("compilePattern(%s) = %v", tc.name, err)
		}
		if tc.name == "exponential" {
			m.workLimit = WorkLimit / 20 // reached all the same, sooner
		}
		if len(m.prog.Inst)*len(line) < m.dfaFrom {
			t.Errorf("%s (%d instructions) on a 256 KiB line is below dfaFrom: the regexp would judge it", tc.name, len(m.prog.Inst))
		}
		start := time.Now()
		count, _, err := m.scan(context.Background(), line, false, 0, 10)
		t.Logf("%s: %d bytes, %d instructions: %d matches, err %v, %v", tc.name, len(tc.pattern), len(m.prog.Inst), count, err, time.Since(start))
		var wl *WorkLimitError
		switch {
		case tc.name == "exponential":
			if !errors.As(err, &wl) {
				t.Errorf("scan(%s) = %d, %v; want a *WorkLimitError", tc.name, count, err)
			}
		case err != nil:
			t.Errorf("scan(%s) = %v", tc.name, err)
		case (count == 1) != tc.matches:
			t.Errorf("scan(%s) = %d matching lines, want match %v", tc.name, count, tc.matches)
		}
	}
}

// TestScanStopsWithinALongLine: a cancelled context stops the automaton in
// the middle of a long line.
func TestScanStopsWithinALongLine(t *testing.T) {
	t.Parallel()
	m, err := compilePattern(`[ab]*a[ab]{500}c`, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, _, err := m.scan(ctx, hostileLine("ab"), false, 0, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("scan cancelled after 20 ms = %v, want context.Canceled", err)
	}
}

func TestGrepRefusesHugePatterns(t *testing.T) {
	t.Parallel()
	root := openRoot(t, t.TempDir())
	for _, tc := range []struct {
		pattern string
		fixed   bool
		insts   bool
	}{
		{pattern: strings.Repeat("x", MaxPatternLen+1)},
		{pattern: strings.Repeat("x", MaxPatternLen+1), fixed: true},
		{pattern: strings.Repeat(`\w{1000}`, 40), insts: true},
	} {
		_, err := Grep(context.Background(), root, nil, Request{Pattern: tc.pattern, FixedStrings: tc.fixed})
		var tl *PatternTooLargeError
		if !errors.As(err, &tl) || (tl.Insts > 0) != tc.insts {
			t.Errorf("Grep(%d-byte pattern, fixed %v) = %v, want *PatternTooLargeError (instructions %v)", len(tc.pattern), tc.fixed, err, tc.insts)
		}
	}
	if _, err := Grep(context.Background(), root, nil, Request{Pattern: strings.Repeat("x", MaxPatternLen)}); err != nil {
		t.Errorf("Grep(a pattern of MaxPatternLen bytes) = %v, want no error", err)
	}
}

// TestGrepReportsWorkLimitWithThePath: the automaton's limit stops the
// whole search and names the file.
func TestGrepReportsWorkLimitWithThePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "small\n", "big/line.txt": string(hostileLine("ab"))})
	_, err := Grep(context.Background(), openRoot(t, dir), nil, Request{Pattern: `[ab]*a[ab]{500}c`, workLimit: WorkLimit / 20})
	var wl *WorkLimitError
	if !errors.As(err, &wl) || wl.Path != "big/line.txt" {
		t.Fatalf("Grep = %v, want a *WorkLimitError for big/line.txt", err)
	}
}

// TestAutomatonCutsLongLinesAroundTheMatch: a long line judged by the
// automaton is still shown around its match.
func TestAutomatonCutsLongLinesAroundTheMatch(t *testing.T) {
	t.Parallel()
	m, err := compilePattern(`ne+dle\d`, false, false)
	if err != nil {
		t.Fatal(err)
	}
	m.dfaFrom = 0
	line := strings.Repeat("x", 10000) + "needle7" + strings.Repeat("y", 10000)
	_, lines, err := m.scan(context.Background(), []byte(line), false, 0, 10)
	if err != nil || len(lines) != 1 || !strings.Contains(lines[0].Text, "needle7") || len(lines[0].Text) > MaxLineLen+8 {
		t.Fatalf("scan of a long line = %v, %v; want one line of about %d bytes around needle7", lines, err, MaxLineLen)
	}
}

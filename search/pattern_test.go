package search

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// naiveLines is the reference: the numbers of the lines that the regexp
// matches, one line at a time, without a trailing "\r".
func naiveLines(re *regexp.Regexp, buf []byte) []int {
	var out []int
	n := 0
	for len(buf) > 0 {
		n++
		line := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else {
			buf = nil
		}
		if re.Match(trimCR(line)) {
			out = append(out, n)
		}
	}
	return out
}

func scanLines(t *testing.T, m *matcher, buf []byte) []int {
	t.Helper()
	_, lines, err := m.scan(context.Background(), buf, false, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, l := range lines {
		out = append(out, l.Number)
	}
	return out
}

// checkScan compares the prefiltered scan with the reference, with lines
// judged by the regexp and by the automaton, and checks that the content
// filter keeps a text that matches.
func checkScan(t *testing.T, pattern string, icase bool, text string) {
	t.Helper()
	m, err := compilePattern(pattern, false, icase)
	if err != nil {
		return
	}
	want := naiveLines(m.line, []byte(text))
	for _, engine := range []struct {
		name    string
		dfaFrom int
	}{{"regexp", 1 << 62}, {"automaton", 0}} {
		m.dfaFrom = engine.dfaFrom
		got := scanLines(t, m, []byte(text))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("scan(%q, icase=%v) by the %s on %q mismatch (-want +got):\n%s", pattern, icase, engine.name, text, diff)
		}
		count, _, _ := m.scan(context.Background(), []byte(text), false, 0, 0)
		if count != len(want) {
			t.Errorf("scan(%q) by the %s count = %d, want %d", pattern, engine.name, count, len(want))
		}
	}
	// The content filter, of any size, may not turn away a text that has a
	// match.
	if len(want) > 0 && m.grams != nil && !(m.grams.folded && foldsToASCII([]byte(text))) {
		grams := newGramSet().of([]byte(text))
		for _, bits := range []int{gramBits, minGramBits} {
			if !m.grams.mayMatch(newGramFilter(grams, bits)) {
				t.Errorf("the content filter (%d bits a trigram) of %q turns away a text that matches %q (icase=%v)", bits, text, pattern, icase)
			}
		}
	}
}

var scanCases = []struct {
	pattern string
	icase   bool
	text    string
}{
	{"func main", false, "package x\nfunc main() {}\nfunc mainly()\n"},
	{"content-type", true, "Content-Type: x\nCONTENT-TYPE\ncontent_type\ncontent-typ"},
	{`func \w+Handler\(`, false, "func fooHandler(\nfunc Handler(\nfunc a_Handler(x)\n"},
	{`\b[A-Z]{3,}_[A-Z]+\b`, false, "ABC_DEF\nAB_CD\nxABC_DEF\nABCD_E x\nABC_\n"},
	{`TODO|FIXME`, false, "a TODO\nb\nFIXME c\nTODOFIXME\n"},
	{`^\s*$`, false, "\n  \nx\n\t\r\n"},
	{`end$`, false, "the end\r\nend of\nend"},
	{`\Aabc\z`, false, "abc\nabcd\nabc\r\n"},
	{`k`, true, "K\nk\n\u212a\nx"},        // Kelvin sign folds to k
	{`s+`, true, "\u017f\nS\n"},           // long s folds to s
	{`caf.`, false, "caf\xe9\ncafe\ncaf"}, // invalid UTF-8 matches .
	{"\ufffd", false, "a\xffb\nok\n"},     // U+FFFD matches an invalid byte
	{`a[^b]c`, false, "a\nc\naxc\n"},      // a class with \n never spans lines
	{`(ab)+c`, false, "ababc\nabc\nbc\n"},
	{`x{3,}y`, false, "xxxy\nxxy\nxxxxxy\n"},
	{`é+`, true, "É\né\ne\n"},
	{`[[:upper:]]{2}\d`, false, "AB1\nA1\nab1\n"},
	{`a|`, false, "x\n\ny\n"},
	{`(?m)^b`, false, "a\nb\n"},
	{`(?s)a.b`, false, "a\nb\naxb\n"},
	{`[A-Z]{3}\d`, false, "AB1\nABC1\nxABCD9x\nABC\n1\n"},
	{`\b\w{3,}\b`, false, "ab cd\nabc\n a_b \n"},
	{`fooBar|QUX`, true, "x\nFOOBAR\n"},
	{`session`, true, "SE\u017f\u017fION\nsessio\n"},
	{`kind|sort`, true, "\u212aIND\nSORT\n"},
	{`a\x{0130}b`, true, "A\u0130B\n"},
	{`[Hh]andle\(`, false, "HANDLE(\nhandle(\n"},
	{`caf\xe9`, false, "caf\xc3\xa9\n"},
	{`\x{1e9e}ss`, true, "\u00dfSS\n\u1e9eSS\n"},
	{`[a-c]{70}`, false, strings.Repeat("a", 69) + "\n" + strings.Repeat("abc", 24) + "\n" + strings.Repeat("c", 64) + "d" + strings.Repeat("a", 6) + "\n"},
}

func TestScanAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	for _, tc := range scanCases {
		checkScan(t, tc.pattern, tc.icase, tc.text)
	}
}

func TestPlanFinderUsesLiterals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern string
		icase   bool
		finder  bool
		exact   bool
	}{
		{"func main", false, true, true},
		{"content-type", true, true, true},
		{`func \w+Handler\(`, false, true, false},
		{`\b[A-Z]{3,}_[A-Z]+\b`, false, true, false},
		{`TODO|FIXME`, false, true, true},
		{`TODO|FIX\w`, false, true, true}, // \w is one ASCII byte
		{`TODO|FIX\b`, false, true, false},
		{`\w+`, false, true, false},       // a shift-and scan for one class
		{`[A-Z]{3}\d`, false, true, true}, // a shift-and scan for four classes
		{`a*|b`, false, false, false},
		{`k`, true, false, false},
	} {
		m, err := compilePattern(tc.pattern, false, tc.icase)
		if err != nil {
			t.Fatal(err)
		}
		if (m.finder != nil) != tc.finder || m.exact != tc.exact {
			t.Errorf("compilePattern(%q): finder %v exact %v, want %v %v", tc.pattern, m.finder != nil, m.exact, tc.finder, tc.exact)
		}
	}
}

func FuzzScanAgreesWithRegexp(f *testing.F) {
	for _, tc := range scanCases {
		f.Add(tc.pattern, tc.icase, tc.text)
	}
	f.Fuzz(func(t *testing.T, pattern string, icase bool, text string) {
		if len(pattern) > 64 || len(text) > 4096 {
			return
		}
		checkScan(t, pattern, icase, text)
	})
}

// TestGramsFor checks that patterns with a literal run of three letters or
// more get a query for the content filter, and those without do not.
func TestGramsFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern string
		icase   bool
		all     int // required trigrams; -1: no query
		any     int // branches
	}{
		{"func main", false, 7, 0},
		{"content-type", true, 10, 0},
		{`func \w+Handler\(`, false, 9, 0}, // 3 of "func ", 6 of "Handler("
		{`\b[A-Z]{3,}_[A-Z]+\b`, false, -1, 0},
		{`TODO|FIXME`, false, 0, 2},
		{`TODO|FI`, false, -1, 0}, // a branch with no trigram: no query
		{`ab`, false, -1, 0},
		{`kind`, true, 2, 0}, // k stands for k and K (a file with the Kelvin sign is always read)
		{`session`, true, 5, 0},
		{`Kind`, false, 2, 0}, // case-sensitive: both
		{`a.cde`, false, 1, 0},
	} {
		m, err := compilePattern(tc.pattern, false, tc.icase)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.all < 0:
			if m.grams != nil {
				t.Errorf("gramsFor(%q) = %+v, want no query", tc.pattern, m.grams)
			}
		case m.grams == nil:
			t.Errorf("gramsFor(%q) = nil, want %d trigrams and %d branches", tc.pattern, tc.all, tc.any)
		case len(m.grams.all) != tc.all || len(m.grams.any) != tc.any:
			t.Errorf("gramsFor(%q): %d trigrams and %d branches, want %d and %d", tc.pattern, len(m.grams.all), len(m.grams.any), tc.all, tc.any)
		}
	}
}

package search

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/excerpt"
)

// Limits of a pattern, checked before any file is read. Matching costs
// grow with the size of the compiled pattern, so these bound the work per
// byte searched.
const (
	// MaxPatternLen is the longest pattern Grep accepts, in bytes.
	MaxPatternLen = 4096
	// MaxPatternInsts bounds the compiled pattern: counted repeats such as
	// x{1000} multiply its size.
	MaxPatternInsts = 32 << 10
)

// PatternTooLargeError is returned for a pattern longer than MaxPatternLen
// bytes, or one that compiles to more than MaxPatternInsts instructions.
type PatternTooLargeError struct {
	Len   int // bytes
	Insts int // instructions of the compiled pattern; 0 when it was too long to compile
}

// Error names the size and the limit.
func (e *PatternTooLargeError) Error() string {
	if e.Insts > 0 {
		return fmt.Sprintf("the pattern compiles to %d instructions; grep takes patterns of up to %d (counted repeats such as {1000} multiply the size)", e.Insts, MaxPatternInsts)
	}
	return fmt.Sprintf("the pattern is %d bytes; grep takes patterns up to %d bytes", e.Len, MaxPatternLen)
}

// WorkLimit is how many steps of automaton building Grep allows per file
// (about half a second of work): a pattern whose automaton keeps growing with
// the text (many alternatives, counted repeats and wide classes that
// overlap) fails with *WorkLimitError instead of running for minutes.
const WorkLimit = 40_000_000

// WorkLimitError is returned when matching the pattern against one file
// needed more than WorkLimit steps.
type WorkLimitError struct {
	Path string // slash path relative to the root
	Work int64
}

// Error names the file and the limit.
func (e *WorkLimitError) Error() string {
	return fmt.Sprintf("matching the pattern against %s needed more than %d steps of work", e.Path, WorkLimit)
}

// PatternError is returned for a pattern that is not valid RE2 syntax. Err
// is the parser's error; LooksLiteral says the pattern reads like plain text
// that happens to contain metacharacters ("foo(", "a[0]", "*ptr"), in which
// case searching with FixedStrings is probably what was meant.
type PatternError struct {
	Pattern      string
	Err          error
	LooksLiteral bool
}

// Error quotes the pattern and the parser's complaint.
func (e *PatternError) Error() string {
	return fmt.Sprintf("invalid pattern %s: %v", excerpt.Quote(e.Pattern), e.Err)
}

// Unwrap returns the parser's error.
func (e *PatternError) Unwrap() error { return e.Err }

// shortSyntaxError keeps the parser's complaint but only an excerpt of the
// part of the pattern it quotes (which can be the whole pattern).
func shortSyntaxError(err error) error {
	if se, ok := errors.AsType[*syntax.Error](err); ok && len(se.Expr) > excerpt.Limit {
		return &syntax.Error{Code: se.Code, Expr: excerpt.Text(se.Expr)}
	}
	return err
}

// looksLiteral guesses whether an invalid regex was meant as plain text: it
// has no escape sequences or constructs that only a regex author writes.
func looksLiteral(p string) bool {
	for _, marker := range []string{`\w`, `\d`, `\s`, `\b`, `.*`, `.+`, `(?`, `[a-z`, `[A-Z`, `[0-9`, `[^`} {
		if strings.Contains(p, marker) {
			return false
		}
	}
	return strings.ContainsAny(p, `()[]{}*+?|\`)
}

// matcher finds the lines of a buffer that match a pattern. The regexp is
// always the judge; the finder only proposes candidate positions so that most
// of the buffer is skipped with byte scans.
type matcher struct {
	line *regexp.Regexp // per line, without the line's newline
	// prog is line's program, run by a lineDFA where the regexp could be
	// slow: from dfaFrom instructions × bytes of a file on.
	prog    *syntax.Prog
	dfaFrom int
	// byteClasses are prog's, computed on first use.
	byteClasses func() *byteClasses
	// workLimit is WorkLimit, lowered by tests.
	workLimit int64
	// buf searches a whole buffer (multi-line mode) when no finder exists
	// and the buffer has no carriage return.
	buf    *regexp.Regexp
	finder finder
	// exact means a finder hit is a match: the regexp need not run.
	exact bool
	// grams is what a file's trigrams must hold for a match (nil: nothing
	// the content filter can check).
	grams *gramQuery
	// window, when set, holds every byte a match can consume (the pattern
	// is ASCII-only and never matches empty). A match then lies inside the
	// run of such bytes around a finder hit, and the regexp runs on that
	// run only (plus one delimiting byte each side, for \b and anchors).
	window *byteSet
}

// compilePattern builds the matcher for a pattern.
func compilePattern(pattern string, fixed, caseInsensitive bool) (*matcher, error) {
	if len(pattern) > MaxPatternLen {
		return nil, &PatternTooLargeError{Len: len(pattern)}
	}
	expr := pattern
	if fixed {
		expr = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl
	if caseInsensitive {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Err: shortSyntaxError(err), LooksLiteral: !fixed && looksLiteral(pattern)}
	}
	if caseInsensitive {
		expr = "(?i)" + expr
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Err: err, LooksLiteral: !fixed && looksLiteral(pattern)}
	}
	if len(prog.Inst) > MaxPatternInsts {
		return nil, &PatternTooLargeError{Len: len(pattern), Insts: len(prog.Inst)}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Err: err, LooksLiteral: !fixed && looksLiteral(pattern)}
	}
	m := &matcher{line: re, prog: prog, dfaFrom: dfaFrom, workLimit: WorkLimit, byteClasses: sync.OnceValue(func() *byteClasses { return newByteClasses(prog) })}
	m.finder, m.exact = planFinder(tree)
	m.grams = gramsFor(tree)
	if m.finder != nil && !m.exact {
		var allowed byteSet
		if asciiBytes(tree, &allowed) {
			m.window = &allowed
		}
	}
	if m.finder == nil {
		bufTree := toMultiLine(tree.Simplify())
		m.buf, err = regexp.Compile(bufTree.String())
		if err != nil {
			// The rewritten tree should always compile; fall back to
			// checking every line.
			m.buf = nil
		}
	}
	return m, nil
}

// asciiBytes adds to set every byte that re can consume and reports whether
// all of them are ASCII and known (no "." and no non-ASCII class or rune).
func asciiBytes(re *syntax.Regexp, set *byteSet) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			for f := r; ; {
				if f >= utf8.RuneSelf {
					return false
				}
				set.add(byte(f))
				if re.Flags&syntax.FoldCase == 0 {
					break
				}
				if f = unicode.SimpleFold(f); f == r {
					break
				}
			}
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= utf8.RuneSelf {
				return false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set.add(byte(r))
			}
		}
		return true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return true
	}
	for _, sub := range re.Sub {
		if !asciiBytes(sub, set) {
			return false
		}
	}
	return true
}

// toMultiLine rewrites a tree so that, run over a whole buffer without
// carriage returns, it matches wherever the original matches one line: text
// anchors become line anchors.
func toMultiLine(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = nil
	for _, s := range re.Sub {
		c.Sub = append(c.Sub, toMultiLine(s))
	}
	switch re.Op {
	case syntax.OpBeginText:
		c.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		c.Op = syntax.OpEndLine
	}
	if c.Op == syntax.OpAnyChar {
		c.Op = syntax.OpAnyCharNotNL
	}
	return &c
}

// byteSet is a set of bytes, one position of a required sequence.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) count() (n int, only byte) {
	for i := 0; i < 256; i++ {
		if s.has(byte(i)) {
			n++
			only = byte(i)
		}
	}
	return n, only
}

// dfaFrom is the cost (instructions of the pattern × bytes of a file) from
// which a file's lines are judged by a lineDFA instead of the regexp, whose
// worst case is about 12 ns per unit: 8M units is about 100 ms.
const dfaFrom = 8 << 20

// Bounds on the finder, so that proposing candidates stays cheap per byte:
// the positions of a sequence checked around an anchor hit, and the
// branches of an alternation scanned separately.
const (
	maxFinderSeq  = 128
	maxFinderAlts = 64
)

// maxRepeatCopies bounds how many copies of a repeated item x{n,m} a
// sequence holds.
const maxRepeatCopies = 32

// seqBuilder collects the byte sequences every match must contain: runs of
// positions whose byte sets are known and adjacent.
type seqBuilder struct {
	seqs   [][]byteSet
	cur    []byteSet
	breaks int  // boundaries inside the pattern
	assert bool // zero-width assertions seen
	// cr: a position accepts '\r', which a hit may take from a line's
	// ending, so hits must be checked by the regexp.
	cr bool
	// lenient (the content filter's sequences only): a case-folded k or s
	// stands for its ASCII letters alone, its other forms (the Kelvin sign
	// and the long s, the only non-ASCII runes that fold to ASCII letters)
	// left to the filter, which keeps every file holding one; folded says
	// that happened.
	lenient, folded bool
}

// Runes outside ASCII that fold to an ASCII letter.
const (
	kelvinSign = '\u212a' // K
	longS      = '\u017f' // s
)

func (b *seqBuilder) cut() {
	if len(b.cur) > 0 {
		b.seqs = append(b.seqs, b.cur)
		b.cur = nil
	}
	b.breaks++
}

func (b *seqBuilder) push(s byteSet) { b.cur = append(b.cur, s) }

// walk describes re; it returns false when re can match the empty string
// in a way the builder cannot account for (the caller then treats the node
// as a boundary).
func (b *seqBuilder) walk(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			b.rune(r, fold)
		}
	case syntax.OpCharClass:
		var s byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf {
				b.cut()
				return
			}
			for r := lo; r <= hi; r++ {
				if r != '\n' {
					s.add(byte(r))
				}
			}
			if lo <= '\r' && '\r' <= hi {
				b.cr = true
			}
		}
		if n, _ := s.count(); n == 0 {
			b.cut()
			return
		}
		b.push(s)
	case syntax.OpCapture:
		b.walk(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			b.walk(s)
		}
	case syntax.OpPlus:
		// x+ is x...x: the first copy touches what comes before, the last
		// copy what comes after.
		b.walk(re.Sub[0])
		b.cut()
		b.walk(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			for range min(re.Min, maxRepeatCopies) {
				b.walk(re.Sub[0])
			}
			if re.Max != re.Min || re.Min > maxRepeatCopies {
				// The last copies touch what follows.
				b.cut()
				for range min(re.Min, maxRepeatCopies) {
					b.walk(re.Sub[0])
				}
			}
			return
		}
		b.cut()
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		b.assert = true
	default:
		b.cut()
	}
}

func (b *seqBuilder) rune(r rune, fold bool) {
	if r == '\n' {
		// No line holds a newline: this position matches nothing.
		b.push(byteSet{})
		return
	}
	if r == '\r' {
		b.cr = true
	}
	if !fold {
		if r == utf8.RuneError {
			// U+FFFD in a pattern also matches invalid bytes.
			b.cut()
			return
		}
		var enc [utf8.UTFMax]byte
		n := utf8.EncodeRune(enc[:], r)
		for _, c := range enc[:n] {
			var s byteSet
			s.add(c)
			b.push(s)
		}
		return
	}
	var s byteSet
	for f := r; ; {
		switch {
		case b.lenient && (f == kelvinSign || f == longS):
			b.folded = true
		case f >= utf8.RuneSelf:
			b.cut()
			return
		default:
			s.add(byte(f))
		}
		f = unicode.SimpleFold(f)
		if f == r {
			break
		}
	}
	b.push(s)
}

// planFinder picks the best candidate finder for a parsed tree. exact is
// true when a finder hit is always a match.
func planFinder(re *syntax.Regexp) (finder, bool) {
	if re.Op == syntax.OpAlternate {
		// A hit of any branch is a candidate; when every branch is exact,
		// a hit is a match.
		if len(re.Sub) > maxFinderAlts {
			return nil, false
		}
		var alts []finder
		exact := true
		for _, sub := range re.Sub {
			f, e := planFinder(sub)
			if f == nil {
				return nil, false
			}
			alts = append(alts, f)
			exact = exact && e
		}
		return newAltFinder(alts), exact
	}
	if re.Op == syntax.OpCapture && re.Sub[0].Op == syntax.OpAlternate {
		return planFinder(re.Sub[0])
	}
	b := &seqBuilder{}
	b.walk(re)
	exact := b.breaks == 0 && !b.assert && !b.cr && len(b.seqs) == 0
	b.cut()
	// Every part of a required sequence is required too: cut long ones so
	// that checking a candidate costs at most maxFinderSeq positions.
	var seqs [][]byteSet
	for _, seq := range b.seqs {
		for len(seq) > maxFinderSeq {
			seqs = append(seqs, seq[:maxFinderSeq])
			seq = seq[maxFinderSeq:]
		}
		seqs = append(seqs, seq)
	}
	b.seqs = seqs
	var best finder
	bestScore := 0.0
	for _, seq := range b.seqs {
		f, score := seqFinderFor(seq)
		if f != nil && score > bestScore {
			best, bestScore = f, score
		}
	}
	if best == nil {
		return nil, false
	}
	return best, exact && len(b.seqs) == 1
}

// rarity estimates how rare each byte is in source code, in bits: about
// -log2 of its frequency in the Go toolchain's own source tree (text files),
// capped at 20. Rarer bytes make better anchors for byte scans.
var rarity = [256]uint8{
	20, 20, 20, 20, 20, 20, 20, 20, 20, 5, 5, 20, 20, 18, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20,
	3, 10, 7, 12, 11, 10, 10, 10, 6, 6, 9, 10, 5, 9, 6, 6, 5, 6, 7, 7, 7, 8, 7, 8, 7, 8, 7, 10, 10, 7, 10, 14,
	14, 6, 8, 8, 8, 7, 8, 9, 9, 8, 11, 10, 8, 8, 8, 8, 8, 10, 7, 7, 7, 9, 8, 9, 8, 10, 11, 9, 8, 9, 13, 7,
	11, 5, 7, 6, 6, 4, 6, 7, 7, 5, 10, 8, 6, 7, 5, 5, 6, 10, 5, 5, 5, 6, 7, 8, 6, 7, 10, 7, 10, 7, 14, 20,
	15, 16, 15, 16, 17, 16, 16, 18, 16, 17, 17, 18, 17, 19, 18, 18, 17, 18, 18, 17, 17, 16, 18, 17, 16, 17, 19, 19, 17, 16, 18, 19,
	18, 18, 18, 18, 17, 17, 17, 17, 18, 17, 17, 17, 17, 17, 18, 18, 18, 17, 17, 17, 18, 18, 18, 12, 18, 16, 17, 17, 16, 17, 17, 18,
	20, 20, 12, 17, 20, 20, 20, 19, 20, 18, 18, 20, 17, 18, 15, 17, 19, 19, 20, 20, 20, 19, 19, 18, 16, 15, 20, 19, 20, 20, 20, 20,
	17, 16, 14, 15, 18, 17, 16, 17, 17, 19, 19, 20, 20, 20, 20, 20, 17, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20,
}

// anchor is one way to scan for a sequence: a literal run scanned with
// bytes.Index (or IndexByte), or one position with two possible bytes
// scanned with two IndexByte passes.
type anchor struct {
	lit  []byte
	pair [2]byte
	at   int  // position of the anchor in the sequence
	two  bool // pair anchor
	// scan is the rarity of the byte the scan looks for: the higher, the
	// fewer false hits and the faster the scan.
	scan int
}

// seqFinderFor chooses the anchor of one sequence and returns its finder
// and how good the anchor is (the rarity of the scanned byte, with the
// rarity of the whole sequence to break ties).
func seqFinderFor(seq []byteSet) (finder, float64) {
	best := anchor{scan: -1}
	total := 0
	for i := 0; i < len(seq); {
		n, _ := seq[i].count()
		if n == 2 {
			var bs []byte
			for c := 0; c < 256; c++ {
				if seq[i].has(byte(c)) {
					bs = append(bs, byte(c))
				}
			}
			// Two scans: count the pair one bit more common than its
			// commoner byte.
			score := int(min(rarity[bs[0]], rarity[bs[1]])) - 1
			total += score
			if score > best.scan {
				best = anchor{pair: [2]byte{bs[0], bs[1]}, at: i, two: true, scan: score}
			}
		}
		if n != 1 {
			i++
			continue
		}
		// A run of single bytes: scan from its rarest byte on, so that
		// bytes.Index looks for that byte first.
		j, k := i, i
		for j < len(seq) {
			n, c := seq[j].count()
			if n != 1 {
				break
			}
			total += int(rarity[c])
			if _, ck := seq[k].count(); rarity[c] > rarity[ck] {
				k = j
			}
			j++
		}
		if _, ck := seq[k].count(); int(rarity[ck]) > best.scan {
			lit := make([]byte, 0, j-k)
			for _, s := range seq[k:j] {
				_, c := s.count()
				lit = append(lit, c)
			}
			best = anchor{lit: lit, at: k, scan: int(rarity[ck])}
		}
		i = j
	}
	if best.scan < 0 {
		// Only wider classes: run a shift-and automaton over the whole
		// sequence (its first 64 positions), one step per byte.
		return newBitapFinder(seq), 0.5
	}
	sf := &seqFinder{sets: seq, anchor: best.lit, pair: best.pair, usePair: best.two, anchorAt: best.at}
	sf.verify = best.two || len(seq) > len(best.lit)
	return sf, float64(best.scan) + float64(total)/1000
}

// finder proposes where matches may start. A finder is immutable and shared;
// cursor returns the stateful scanner for one buffer.
type finder interface {
	cursor() cursor
}

// cursor scans one buffer. next returns the offset of the first candidate at
// or after from whose line contains the whole required sequence, or -1; from
// never decreases between calls.
type cursor interface {
	next(buf []byte, from int) int
}

// seqFinder looks for one required sequence of byte sets by an anchor inside
// it and checks the rest of the sequence around each anchor hit.
type seqFinder struct {
	sets     []byteSet
	anchor   []byte // a literal run of sets starting at anchorAt
	pair     [2]byte
	usePair  bool // anchor is one position with two bytes
	anchorAt int
	verify   bool // sets beyond the anchor must be checked
}

func (f *seqFinder) cursor() cursor { return &seqCursor{f: f, na: -2, nb: -2} }

type seqCursor struct {
	f *seqFinder
	// na and nb cache the next hit of each pair byte (-2 unknown, -1 none).
	na, nb int
}

func (c *seqCursor) next(buf []byte, from int) int {
	f := c.f
	pos := from + f.anchorAt
	for pos < len(buf) {
		var hit int
		if f.usePair {
			if c.na != -1 && c.na < pos {
				c.na = indexFrom(buf, pos, f.pair[0])
			}
			if c.nb != -1 && c.nb < pos {
				c.nb = indexFrom(buf, pos, f.pair[1])
			}
			switch {
			case c.na < 0 && c.nb < 0:
				return -1
			case c.na < 0:
				hit = c.nb
			case c.nb < 0:
				hit = c.na
			default:
				hit = min(c.na, c.nb)
			}
		} else if len(f.anchor) == 1 {
			i := bytes.IndexByte(buf[pos:], f.anchor[0])
			if i < 0 {
				return -1
			}
			hit = pos + i
		} else {
			i := bytes.Index(buf[pos:], f.anchor)
			if i < 0 {
				return -1
			}
			hit = pos + i
		}
		start := hit - f.anchorAt
		if !f.verify || f.check(buf, start) {
			return start
		}
		pos = hit + 1
	}
	return -1
}

func (f *seqFinder) check(buf []byte, start int) bool {
	if start < 0 || start+len(f.sets) > len(buf) {
		return false
	}
	for i := range f.sets {
		if !f.sets[i].has(buf[start+i]) {
			return false
		}
	}
	return true
}

// bitapFinder finds a sequence of byte sets with the shift-and algorithm:
// bit j of the state says the last j+1 bytes match the first j+1 sets. It
// suits sequences of wide classes, which have no byte rare enough to scan
// for.
type bitapFinder struct {
	masks [256]uint64 // bit j set: the byte is in set j
	n     int         // positions in the automaton (at most 64)
	rest  *seqFinder  // checks positions past 64, if any
}

func newBitapFinder(seq []byteSet) *bitapFinder {
	f := &bitapFinder{n: min(len(seq), 64)}
	for j := 0; j < f.n; j++ {
		for c := 0; c < 256; c++ {
			if seq[j].has(byte(c)) {
				f.masks[c] |= 1 << j
			}
		}
	}
	if len(seq) > 64 {
		f.rest = &seqFinder{sets: seq}
	}
	return f
}

func (f *bitapFinder) cursor() cursor { return f }

func (f *bitapFinder) next(buf []byte, from int) int {
	last := uint64(1) << (f.n - 1)
	var d uint64
	for i := from; i < len(buf); i++ {
		d = (d<<1 | 1) & f.masks[buf[i]]
		if d&last != 0 {
			start := i - f.n + 1
			if f.rest == nil || f.rest.check(buf, start) {
				return start
			}
		}
	}
	return -1
}

func indexFrom(buf []byte, from int, c byte) int {
	if from >= len(buf) {
		return -1
	}
	i := bytes.IndexByte(buf[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}

// altFinder proposes the earliest candidate of any of several finders, one
// per branch of a top-level alternation.
type altFinder struct{ subs []finder }

func newAltFinder(subs []finder) finder { return &altFinder{subs: subs} }

func (f *altFinder) cursor() cursor {
	c := &altCursor{subs: make([]cursor, len(f.subs)), hits: make([]int, len(f.subs))}
	for i, s := range f.subs {
		c.subs[i] = s.cursor()
		c.hits[i] = -2
	}
	return c
}

type altCursor struct {
	subs []cursor
	hits []int // next candidate of each branch (-2 unknown, -1 none)
}

func (c *altCursor) next(buf []byte, from int) int {
	best := -1
	for i, s := range c.subs {
		if c.hits[i] != -1 && c.hits[i] < from {
			c.hits[i] = s.next(buf, from)
		}
		if h := c.hits[i]; h >= 0 && (best < 0 || h < best) {
			best = h
		}
	}
	return best
}

package search

import (
	"context"
	"encoding/binary"
	"math/bits"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA decides whether a text holds a match of a compiled program, as
// regexp.Match does, in time linear in the text once its states are built:
// a lazily built deterministic automaton whose states are the sets of
// program positions an NFA would hold, built on demand from Go's own
// compiled program (so every operator, flag and Unicode rule is the
// regexp package's) and cached.
//
// Go's regexp runs a pike VM whose cost is the number of live threads per
// byte, up to the program's length: a 4 KiB pattern over a 1 MB line can
// take a minute, and one call cannot be interrupted. lineDFA checks its
// context every 16 KiB of input and counts the program instructions it
// visits while building states; past its budget it stops with
// *WorkLimitError, so that a pattern whose automaton explodes (states
// rebuilt on every byte) fails in bounded time instead of running for
// minutes.
//
// A lineDFA is used by one goroutine at a time.
type lineDFA struct {
	prog    *syntax.Prog
	classes *byteClasses
	budget  int64 // steps a scan may spend building states
	work    int64

	cache map[string]*dfaState
	pcs   int // program positions held by cached states
	start *dfaState

	// Scratch space of build.
	seen  []uint32 // sparse set of visited positions
	dense []uint32
	stack []uint32
	mark  []uint64 // bit set of the positions after the rune
	next  []uint32
	key   []byte
}

// dfaState is a set of program positions waiting for the next rune, plus
// what the empty-width assertions need to know of the previous rune.
type dfaState struct {
	pcs []uint32
	// prev stands for the previous rune in syntax.EmptyOpContext: -1 at the
	// start of the text, '\n', 'a' for a word character, ' ' otherwise.
	prev rune
	// ascii holds the transitions on ASCII bytes, one per byte class.
	ascii []*dfaState
	other map[rune]*dfaState
	end   int8 // 0 unknown, 1 no match at the end of the text, 2 a match
}

// dfaMatch is the state after a match: the text matches.
var dfaMatch = &dfaState{}

// Cache bounds: past either, the cache is emptied and states are built
// again as needed.
const (
	dfaMaxStates = 4096
	dfaMaxPCs    = 1 << 20
	// dfaMaxOther bounds the non-ASCII transitions cached per state.
	dfaMaxOther = 256
	// dfaCheckEvery is how many bytes pass between context checks.
	dfaCheckEvery = 16 << 10
	// dfaStateCost is what building a state costs beyond the positions it
	// visits (allocation, hashing), in the same steps as the budget.
	dfaStateCost = 64
)

// byteClasses groups the ASCII bytes that no instruction of a program, no
// word boundary and no line boundary tells apart: they lead from any state
// to the same state, so a state keeps one transition per class.
type byteClasses struct {
	of [utf8.RuneSelf]uint8
	n  int
}

// newByteClasses refines the classes by every rune instruction; it costs
// 128 steps per instruction, once per pattern.
func newByteClasses(prog *syntax.Prog) *byteClasses {
	c := &byteClasses{n: 1}
	split := func(in func(b byte) bool) {
		var to [256][2]int16 // old class, in or not -> new class
		for i := range to {
			to[i] = [2]int16{-1, -1}
		}
		n := 0
		for b := 0; b < utf8.RuneSelf; b++ {
			k := 0
			if in(byte(b)) {
				k = 1
			}
			slot := &to[c.of[b]][k]
			if *slot < 0 {
				*slot = int16(n)
				n++
			}
			c.of[b] = uint8(*slot)
		}
		c.n = n
	}
	split(func(b byte) bool { return syntax.IsWordChar(rune(b)) })
	split(func(b byte) bool { return b == '\n' })
	for i := range prog.Inst {
		inst := &prog.Inst[i]
		if (inst.Op == syntax.InstRune || inst.Op == syntax.InstRune1) && c.n < utf8.RuneSelf {
			split(func(b byte) bool { return inst.MatchRune(rune(b)) })
		}
	}
	return c
}

func newLineDFA(prog *syntax.Prog, classes *byteClasses, budget int64) *lineDFA {
	n := len(prog.Inst)
	d := &lineDFA{prog: prog, classes: classes, budget: budget, seen: make([]uint32, n), dense: make([]uint32, 0, n), mark: make([]uint64, (n+63)/64)}
	d.reset()
	return d
}

// reset empties the cache, keeping only the start state.
func (d *lineDFA) reset() {
	d.cache = map[string]*dfaState{}
	d.pcs = 0
	d.start = d.intern(nil, -1)
}

// intern returns the cached state for pcs (sorted, without duplicates)
// after a rune of prev's class, adding it when new.
func (d *lineDFA) intern(pcs []uint32, prev rune) *dfaState {
	d.key = append(d.key[:0], byte(prevClass(prev)))
	for _, pc := range pcs {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if s, ok := d.cache[string(d.key)]; ok {
		return s
	}
	s := &dfaState{pcs: slices.Clone(pcs), prev: prevClass(prev), ascii: make([]*dfaState, d.classes.n)}
	d.cache[string(d.key)] = s
	d.pcs += len(pcs)
	return s
}

// prevClass maps a rune to the representative of its class for
// syntax.EmptyOpContext.
func prevClass(r rune) rune {
	switch {
	case r < 0:
		return -1
	case r == '\n':
		return '\n'
	case syntax.IsWordChar(r):
		return 'a'
	}
	return ' '
}

// find reports where the first match found in text ends, or -1 when there
// is none. It fails with ctx's error or *WorkLimitError.
func (d *lineDFA) find(ctx context.Context, text []byte) (int, error) {
	s := d.start
	check := dfaCheckEvery
	for i := 0; i < len(text); {
		if i >= check {
			if err := ctx.Err(); err != nil {
				return -1, err
			}
			check = i + dfaCheckEvery
		}
		c := text[i]
		r, w := rune(c), 1
		var n *dfaState
		if c < utf8.RuneSelf {
			n = s.ascii[d.classes.of[c]]
		} else {
			r, w = utf8.DecodeRune(text[i:])
			n = s.other[r]
		}
		if n == nil {
			var err error
			if n, err = d.step(s, r); err != nil {
				return -1, err
			}
		}
		if n == dfaMatch {
			return i, nil
		}
		s = n
		i += w
	}
	if s.end == 0 {
		matched, _, err := d.closure(s, -1)
		if err != nil {
			return -1, err
		}
		s.end = 1
		if matched {
			s.end = 2
		}
	}
	if s.end == 2 {
		return len(text), nil
	}
	return -1, nil
}

// match reports whether text holds a match.
func (d *lineDFA) match(ctx context.Context, text []byte) (bool, error) {
	end, err := d.find(ctx, text)
	return end >= 0, err
}

// step builds and caches the transition of s on r.
func (d *lineDFA) step(s *dfaState, r rune) (*dfaState, error) {
	matched, next, err := d.closure(s, r)
	if err != nil {
		return nil, err
	}
	n := dfaMatch
	if !matched {
		if len(d.cache) >= dfaMaxStates || d.pcs+len(next) > dfaMaxPCs {
			// Drop every cached state but s, which the caller still
			// holds; its transitions led into the dropped ones.
			d.reset()
			clear(s.ascii)
			s.other = nil
		}
		n = d.intern(next, r)
	}
	if r < utf8.RuneSelf {
		s.ascii[d.classes.of[r]] = n
	} else if len(s.other) < dfaMaxOther {
		if s.other == nil {
			s.other = map[rune]*dfaState{}
		}
		s.other[r] = n
	}
	return n, nil
}

// closure follows the empty transitions from s's positions and from the
// program's start (the search is unanchored: a match may start anywhere)
// with r as the next rune (-1 at the end of the text). It reports whether a
// match ends here, and otherwise the sorted positions after r.
func (d *lineDFA) closure(s *dfaState, r rune) (matched bool, next []uint32, err error) {
	empty := syntax.EmptyOpContext(s.prev, r)
	d.dense = d.dense[:0]
	marked := false
	add := func(pc uint32) {
		d.mark[pc/64] |= 1 << (pc % 64)
		marked = true
	}
	d.stack = append(append(d.stack[:0], s.pcs...), uint32(d.prog.Start))
walk:
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if i := d.seen[pc]; int(i) < len(d.dense) && d.dense[i] == pc {
			continue
		}
		d.seen[pc] = uint32(len(d.dense))
		d.dense = append(d.dense, pc)
		inst := &d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Arg, inst.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^empty == 0 {
				d.stack = append(d.stack, inst.Out)
			}
		case syntax.InstMatch:
			matched = true
			break walk
		case syntax.InstRune, syntax.InstRune1:
			if r >= 0 && inst.MatchRune(r) {
				add(inst.Out)
			}
		case syntax.InstRuneAny:
			if r >= 0 {
				add(inst.Out)
			}
		case syntax.InstRuneAnyNotNL:
			if r >= 0 && r != '\n' {
				add(inst.Out)
			}
		}
	}
	// Collect the marked positions in order, clearing the marks.
	d.next = d.next[:0]
	if marked {
		for w, set := range d.mark {
			for ; set != 0; set &= set - 1 {
				d.next = append(d.next, uint32(w*64+bits.TrailingZeros64(set)))
			}
			d.mark[w] = 0
		}
	}
	d.work += int64(len(d.dense)) + int64(len(d.mark))/8 + dfaStateCost
	if d.work > d.budget {
		return false, nil, &WorkLimitError{Work: d.work}
	}
	if matched {
		return true, nil, nil
	}
	return false, d.next, nil
}

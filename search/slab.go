package search

import (
	"cmp"
	"slices"
)

// filterStore keeps the content filters' bits in large blocks (slabs)
// rather than one allocation per filter. Where the platform allows
// (allocSlab), the slabs are mapped outside the Go heap: the filters are
// the index's largest long-lived data, they hold no pointers, and outside
// the heap they are neither counted in the collector's heap goal (which
// lets the heap grow to a multiple of what it holds) nor scanned. A filter
// is named by a filterRef; its bits are read through view, under the
// index's lock, as everything of the content table is.
type filterStore struct {
	slabs [][]uint64
	// top is how many words of the last slab are taken.
	top int
	// live counts the words that filters hold, dead those freed or left
	// at the end of a slab; compact gives the dead ones back.
	live, dead int64
}

// slabWords is the size of a slab in 64-bit words (4 MiB). A filter is
// at most 1<<21 trigrams × gramBits bits, half a slab.
const slabWords = 1 << 19

// filterRef locates one filter: the slab's index (bits 44–60), the offset
// of its first word (bits 20–43) and its length in words (bits 0–19). The
// zero ref is the empty filter. Bits 61–62 say how many times the filter
// can still be halved (halveFilter); bit 63 is left to the content table
// (the blob's folds flag). The store keeps both as they are.
type filterRef uint64

const (
	refFolds     filterRef = 1 << 63
	halvingShift           = 61
	refHalvings  filterRef = 3 << halvingShift
	refFlags               = refFolds | refHalvings
)

func makeRef(slab, off, words int) filterRef {
	return filterRef(uint64(slab)<<44 | uint64(off)<<20 | uint64(words))
}

func (r filterRef) slab() int  { return int(r >> 44 & (1<<17 - 1)) }
func (r filterRef) off() int   { return int(r >> 20 & (1<<24 - 1)) }
func (r filterRef) words() int { return int(r & (1<<20 - 1)) }

// halvings is how many times the filter can still be halved.
func (r filterRef) halvings() int { return int(r & refHalvings >> halvingShift) }

// withHalvings is r able to be halved n more times.
func (r filterRef) withHalvings(n int) filterRef {
	return r&^refHalvings | filterRef(n)<<halvingShift
}

// pos orders refs by where their filters lie: slab, then offset.
func (r filterRef) pos() uint64 { return uint64(r>>20) & (1<<41 - 1) }

// put copies f into the store and returns its ref.
func (s *filterStore) put(f gramFilter) filterRef {
	n := len(f)
	if n == 0 {
		return 0
	}
	if len(s.slabs) == 0 || s.top+n > slabWords {
		if len(s.slabs) > 0 {
			s.dead += int64(slabWords - s.top)
		}
		s.slabs = append(s.slabs, allocSlab(slabWords))
		s.top = 0
	}
	i := len(s.slabs) - 1
	copy(s.slabs[i][s.top:s.top+n], f)
	r := makeRef(i, s.top, n)
	s.top += n
	s.live += int64(n)
	return r
}

// view returns the filter r names; it is valid until the next put or
// compact.
func (s *filterStore) view(r filterRef) gramFilter {
	n := r.words()
	if n == 0 {
		return nil
	}
	off := r.off()
	return s.slabs[r.slab()][off : off+n : off+n]
}

// free marks the words of r as dead.
func (s *filterStore) free(r filterRef) {
	n := int64(r.words())
	s.live -= n
	s.dead += n
}

// wasteful reports whether compact would give back at least one slab and
// more than the filters hold.
func (s *filterStore) wasteful() bool {
	return s.dead >= slabWords && s.dead > s.live
}

// compact moves the filters refs name (each updated in place, flags
// kept) into new slabs, packed, and releases the old ones.
func (s *filterStore) compact(refs []filterRef) {
	old := *s
	*s = filterStore{}
	for i, r := range refs {
		if r.words() == 0 {
			continue
		}
		refs[i] = s.put(old.view(r)) | r&refFlags
	}
	for _, slab := range old.slabs {
		freeSlab(slab)
	}
}

// shrink halves every filter refs name that can still be halved (its ref
// updated in place: one halving fewer, flags kept) and packs all of them,
// in the order they lie, from the start of the first slab, in place; the
// slabs left empty are released and the rest of the last one given back
// to the system. It returns the words freed.
func (s *filterStore) shrink(refs []filterRef) int64 {
	var order []int
	for i, r := range refs {
		if r.words() > 0 {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		s.release()
		return 0
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(refs[a].pos(), refs[b].pos()) })
	// A filter moves to where the packing has got to, never after where it
	// lies (the filters before it take no more room than they did), so
	// each is read before anything is written over it.
	slab, top := 0, 0
	var live, dead int64
	for _, i := range order {
		r := refs[i]
		src := s.view(r)
		n, halve := len(src), r.halvings() > 0
		if halve {
			n /= 2
		}
		if top+n > slabWords {
			dead += int64(slabWords - top)
			slab, top = slab+1, 0
		}
		dst := s.slabs[slab][top : top+n]
		flags := r & refFlags
		if halve {
			halveFilter(dst, src)
			flags = flags.withHalvings(r.halvings() - 1)
		} else {
			copy(dst, src)
		}
		refs[i] = makeRef(slab, top, n) | flags
		top += n
		live += int64(n)
	}
	for _, sl := range s.slabs[slab+1:] {
		freeSlab(sl)
	}
	s.slabs = s.slabs[:slab+1]
	trimSlab(s.slabs[slab], top)
	freed := s.live - live
	s.top, s.live, s.dead = top, live, dead
	return freed
}

// release gives every slab back.
func (s *filterStore) release() {
	for _, slab := range s.slabs {
		freeSlab(slab)
	}
	*s = filterStore{}
}

// bytes is the memory the slabs take.
func (s *filterStore) bytes() int64 { return int64(len(s.slabs)) * slabWords * 8 }

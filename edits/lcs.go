package edits

import "hash/maphash"

// This file aligns two sequences with Myers' O((N+M)D) difference algorithm
// in its linear-space form (divide and conquer on the middle snake). Large
// inputs are first cut at lines that occur exactly once on each side (the
// "patience" anchors), so that a few scattered changes in a million lines
// cost little; a subproblem whose difference grows past a budget is reported
// as one replaced block instead of being searched further.

// hunk says that a[A0:A1] was replaced by b[B0:B1]; everything between two
// hunks is equal on both sides.
type hunk struct{ A0, A1, B0, B1 int }

// anchorThreshold is the combined length above which unique-line anchors cut
// the problem before Myers runs.
const anchorThreshold = 4096

// sameEnds returns the lengths of the common prefix of a and b and of
// their common suffix in what is left after it.
func sameEnds[T comparable](a, b []T) (prefix, suffix int) {
	n, m := len(a), len(b)
	for prefix < n && prefix < m && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < n-prefix && suffix < m-prefix && a[n-1-suffix] == b[m-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// diffIDs returns the hunks that turn a into b, in order.
func diffIDs(a, b []int32, ids int) []hunk {
	d := &differ{a: a, b: b, budget: diffBudget}
	n, m := len(a), len(b)
	// Common prefix and suffix cost nothing to align.
	p, s := sameEnds(a, b)
	a0, a1, b0, b1 := p, n-s, p, m-s
	if (a1-a0)+(b1-b0) > anchorThreshold {
		prevA, prevB := a0, b0
		for _, an := range uniqueAnchors(a[a0:a1], b[b0:b1], ids) {
			ai, bi := a0+an[0], b0+an[1]
			d.compare(prevA, ai, prevB, bi)
			prevA, prevB = ai+1, bi+1
		}
		d.compare(prevA, a1, prevB, b1)
	} else {
		d.compare(a0, a1, b0, b1)
	}
	return d.out
}

type differ struct {
	a, b   []int32
	out    []hunk
	vf, vb []int
	// budget is the number of comparison steps left for the whole
	// alignment; once spent, what remains is reported as replaced blocks.
	budget int
}

// diffBudget bounds the work of one alignment (tens of milliseconds).
const diffBudget = 1 << 24

func (d *differ) emit(a0, a1, b0, b1 int) {
	if a0 == a1 && b0 == b1 {
		return
	}
	if k := len(d.out) - 1; k >= 0 && d.out[k].A1 == a0 && d.out[k].B1 == b0 {
		d.out[k].A1, d.out[k].B1 = a1, b1
		return
	}
	d.out = append(d.out, hunk{a0, a1, b0, b1})
}

func (d *differ) compare(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0++
		b0++
	}
	for a0 < a1 && b0 < b1 && d.a[a1-1] == d.b[b1-1] {
		a1--
		b1--
	}
	if a0 == a1 || b0 == b1 {
		d.emit(a0, a1, b0, b1)
		return
	}
	xs, ys, xe, ye, ok := d.middleSnake(a0, a1, b0, b1)
	if !ok {
		d.emit(a0, a1, b0, b1)
		return
	}
	d.compare(a0, xs, b0, ys)
	d.compare(xe, a1, ye, b1)
}

// middleSnake finds the middle snake of the optimal path through a[a0:a1]
// and b[b0:b1] (both non-empty, with differing ends) and returns its start
// and end in absolute coordinates. ok is false when the work budget runs
// out first.
func (d *differ) middleSnake(a0, a1, b0, b1 int) (xs, ys, xe, ye int, ok bool) {
	a, b := d.a, d.b
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	size := 2*maxD + 3
	if cap(d.vf) < size {
		d.vf = make([]int, size)
		d.vb = make([]int, size)
	}
	vf, vb := d.vf[:size], d.vb[:size]
	off := maxD + 1
	vf[off+1], vb[off+1] = 0, 0
	delta := n - m
	odd := delta&1 != 0
	for D := 0; D <= maxD; D++ {
		if d.budget < 0 {
			return 0, 0, 0, 0, false
		}
		for k := -D; k <= D; k += 2 {
			var x int
			if k == -D || (k != D && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1]
			} else {
				x = vf[off+k-1] + 1
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < m && a[a0+x] == b[b0+y] {
				x++
				y++
			}
			vf[off+k] = x
			d.budget -= x - sx + 1
			if odd {
				if kb := delta - k; kb >= -(D-1) && kb <= D-1 && x+vb[off+kb] >= n {
					return a0 + sx, b0 + sy, a0 + x, b0 + y, true
				}
			}
		}
		for k := -D; k <= D; k += 2 {
			var x int
			if k == -D || (k != D && vb[off+k-1] < vb[off+k+1]) {
				x = vb[off+k+1]
			} else {
				x = vb[off+k-1] + 1
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < m && a[a1-1-x] == b[b1-1-y] {
				x++
				y++
			}
			vb[off+k] = x
			d.budget -= x - sx + 1
			if !odd {
				if kf := delta - k; kf >= -D && kf <= D && x+vf[off+kf] >= n {
					return a1 - x, b1 - y, a1 - sx, b1 - sy, true
				}
			}
		}
	}
	return 0, 0, 0, 0, false
}

// uniqueAnchors returns index pairs (i, j) with a[i] == b[j], where that value
// occurs exactly once in a and once in b, forming the longest run increasing
// in both i and j.
func uniqueAnchors(a, b []int32, ids int) [][2]int {
	const many = 2
	countA := make([]uint8, ids)
	countB := make([]uint8, ids)
	posB := make([]int32, ids)
	for _, v := range a {
		if countA[v] < many {
			countA[v]++
		}
	}
	for j, v := range b {
		if countB[v] < many {
			countB[v]++
		}
		posB[v] = int32(j)
	}
	var pairs [][2]int
	for i, v := range a {
		if countA[v] == 1 && countB[v] == 1 {
			pairs = append(pairs, [2]int{i, int(posB[v])})
		}
	}
	// Longest increasing subsequence of the j's (patience sorting).
	tails := make([]int, 0, len(pairs)) // index into pairs of the smallest tail of each length
	prev := make([]int, len(pairs))
	for p, pr := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if pairs[tails[mid]][1] < pr[1] {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			prev[p] = tails[lo-1]
		} else {
			prev[p] = -1
		}
		if lo == len(tails) {
			tails = append(tails, p)
		} else {
			tails[lo] = p
		}
	}
	if len(tails) == 0 {
		return nil
	}
	out := make([][2]int, len(tails))
	for i, p := len(tails)-1, tails[len(tails)-1]; i >= 0; i, p = i-1, prev[p] {
		out[i] = pairs[p]
	}
	return out
}

// internLines maps each distinct string of a and b to a small integer, so
// that the alignment compares integers. Lines are looked up by a 64-bit hash
// (integer map keys are much cheaper than string keys on large files); a
// hash shared by two different lines sends the second one to an exact
// string map, so equal ids always mean equal lines.
func internLines(a, b []string) (ia, ib []int32, ids int) {
	seed := maphash.MakeSeed()
	byHash := make(map[uint64]int32, len(a))
	var first []string // the line each id stands for
	var collided map[string]int32
	conv := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			h := maphash.String(seed, l)
			id, ok := byHash[h]
			switch {
			case !ok:
				id = int32(len(first))
				byHash[h] = id
				first = append(first, l)
			case first[id] != l:
				if collided == nil {
					collided = map[string]int32{}
				}
				if id, ok = collided[l]; !ok {
					id = int32(len(first))
					collided[l] = id
					first = append(first, l)
				}
			}
			out[i] = id
		}
		return out
	}
	ia = conv(a)
	ib = conv(b)
	return ia, ib, len(first)
}

// diffLines aligns two lists of lines and returns the replaced blocks.
// Small inputs get a minimal alignment; large ones are walked line by line
// and only the regions between two agreeing runs are aligned exactly, which
// keeps a few scattered changes in a million lines cheap.
func diffLines(a, b []string) []hunk {
	// Skip the common prefix and suffix first: on a large file with one
	// small change this is nearly all of the work.
	n, m := len(a), len(b)
	p, s := sameEnds(a, b)
	var hs []hunk
	if (n-s-p)+(m-s-p) > anchorThreshold {
		hs = diffWalk(a[p:n-s], b[p:m-s])
	} else {
		hs = diffExact(a[p:n-s], b[p:m-s])
	}
	return shiftHunks(hs, p, p)
}

// diffExact aligns a and b with unique-line anchors (for large inputs) and
// Myers' algorithm between them.
func diffExact(a, b []string) []hunk {
	ia, ib, ids := internLines(a, b)
	return diffIDs(ia, ib, ids)
}

func shiftHunks(hs []hunk, da, db int) []hunk {
	for i := range hs {
		hs[i].A0 += da
		hs[i].A1 += da
		hs[i].B0 += db
		hs[i].B1 += db
	}
	return hs
}

// resyncRun is the number of equal lines in a row that count as the two
// texts agreeing again after a difference.
const resyncRun = 3

// diffWalk walks both texts while they agree; at each difference it looks
// ahead in growing windows for the nearest place where resyncRun lines agree
// again and aligns only the region in between exactly. When no such place
// is near, the rest goes to diffExact.
func diffWalk(a, b []string) []hunk {
	var out []hunk
	add := func(hs []hunk) {
		for _, h := range hs {
			if k := len(out) - 1; k >= 0 && out[k].A1 == h.A0 && out[k].B1 == h.B0 {
				out[k].A1, out[k].B1 = h.A1, h.B1
				continue
			}
			out = append(out, h)
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] == b[j] {
			i++
			j++
			continue
		}
		ri, rj, ok := resync(a, b, i, j)
		if !ok {
			add(shiftHunks(diffExact(a[i:], b[j:]), i, j))
			return out
		}
		add(shiftHunks(diffExact(a[i:ri], b[j:rj]), i, j))
		i, j = ri, rj
	}
	if i < len(a) || j < len(b) {
		add([]hunk{{i, len(a), j, len(b)}})
	}
	return out
}

// resync finds the nearest (ri, rj) after (i, j) where a and b agree for
// resyncRun lines (or to the end of both), searching windows of growing
// size; ok is false when none is found within the largest window.
func resync(a, b []string, i, j int) (ri, rj int, ok bool) {
	agrees := func(x, y int) bool {
		for k := 0; k < resyncRun; k++ {
			if x+k == len(a) && y+k == len(b) {
				return true
			}
			if x+k >= len(a) || y+k >= len(b) || a[x+k] != b[y+k] {
				return false
			}
		}
		return true
	}
	for w := 32; w <= 8192; w *= 4 {
		firstInB := make(map[string]int, w)
		for y := j; y < len(b) && y < j+w; y++ {
			if _, seen := firstInB[b[y]]; !seen {
				firstInB[b[y]] = y
			}
		}
		best := -1
		for x := i; x < len(a) && x < i+w; x++ {
			if best >= 0 && x-i >= best {
				break
			}
			y, found := firstInB[a[x]]
			if !found || !agrees(x, y) {
				continue
			}
			if d := (x - i) + (y - j); best < 0 || d < best {
				best, ri, rj = d, x, y
			}
		}
		if best >= 0 {
			return ri, rj, true
		}
		if i+w >= len(a) && j+w >= len(b) {
			break
		}
	}
	return 0, 0, false
}

package changes

// hunk replaces the lines [a0, a1) of a text with the lines [b0, b1) of
// another. A diff is a list of hunks in order, with at least one equal line
// between two hunks.
type hunk struct{ a0, a1, b0, b1 int }

// maxDiffSteps bounds the edit distance diffLines searches exactly; its
// memory grows with the square of it. Beyond it the differing middle of the
// two texts becomes one hunk.
const maxDiffSteps = 2000

// diffLines aligns two lists of lines with Myers' algorithm after skipping
// their common prefix and suffix, and returns the replaced blocks.
func diffLines(a, b [][]byte) []hunk {
	p := 0
	for p < len(a) && p < len(b) && string(a[p]) == string(b[p]) {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && string(a[len(a)-1-s]) == string(b[len(b)-1-s]) {
		s++
	}
	ia, ib := internLines(a[p:len(a)-s], b[p:len(b)-s])
	if len(ia) == 0 && len(ib) == 0 {
		return nil
	}
	hs, ok := myers(ia, ib, maxDiffSteps)
	if !ok {
		hs = []hunk{{0, len(ia), 0, len(ib)}}
	}
	for k := range hs {
		hs[k].a0 += p
		hs[k].a1 += p
		hs[k].b0 += p
		hs[k].b1 += p
	}
	return hs
}

// internLines numbers the distinct lines of a and b.
func internLines(a, b [][]byte) (ia, ib []int32) {
	ids := make(map[string]int32, len(a)+len(b))
	intern := func(lines [][]byte) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[string(l)]
			if !ok {
				id = int32(len(ids))
				ids[string(l)] = id
			}
			out[i] = id
		}
		return out
	}
	return intern(a), intern(b)
}

// myers returns a shortest edit script from a to b as hunks, or ok false
// when it needs more than maxD insertions and deletions. It keeps the
// furthest-reaching x of every diagonal after each step (O(D²) memory).
func myers(a, b []int32, maxD int) (hs []hunk, ok bool) {
	n, m := len(a), len(b)
	off := n + m + 1
	v := make([]int32, 2*off+1)
	var trace [][]int32
	for d := 0; d <= n+m; d++ {
		if d > maxD {
			return nil, false
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
	}
	return nil, false // not reached: d = n+m always ends the search
}

// backtrack walks the saved diagonals from (n, m) back to (0, 0) and
// collects the insertions and deletions into hunks.
func backtrack(trace [][]int32, n, m int) []hunk {
	type move struct {
		del  bool
		x, y int // position before the move
	}
	var moves []move
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // diagonal k of step d-1 is prev[k+d-1]
		at := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		if pk == k+1 {
			moves = append(moves, move{del: false, x: px, y: py})
		} else {
			moves = append(moves, move{del: true, x: px, y: py})
		}
		x, y = px, py
	}
	var out []hunk
	for i := len(moves) - 1; i >= 0; i-- {
		mv := moves[i]
		last := len(out) - 1
		if last < 0 || out[last].a1 != mv.x || out[last].b1 != mv.y {
			out = append(out, hunk{mv.x, mv.x, mv.y, mv.y})
			last++
		}
		if mv.del {
			out[last].a1++
		} else {
			out[last].b1++
		}
	}
	return out
}

package edits

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// lcsLen is the textbook quadratic longest common subsequence, the
// reference the Myers alignment must match on small inputs.
func lcsLen(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] > cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkHunks verifies that hunks describe a valid alignment of a and b and
// returns the number of lines they keep.
func checkHunks(t *testing.T, a, b []string, hs []hunk) int {
	t.Helper()
	ai, bi, kept := 0, 0, 0
	for _, h := range append(hs, hunk{len(a), len(a), len(b), len(b)}) {
		if h.A0 < ai || h.B0 < bi || h.A1 < h.A0 || h.B1 < h.B0 || h.A0-ai != h.B0-bi {
			t.Fatalf("bad hunk %+v after (%d,%d)", h, ai, bi)
		}
		for ; ai < h.A0; ai, bi = ai+1, bi+1 {
			if a[ai] != b[bi] {
				t.Fatalf("kept lines differ: a[%d]=%q b[%d]=%q", ai, a[ai], bi, b[bi])
			}
			kept++
		}
		ai, bi = h.A1, h.B1
	}
	return kept
}

func TestDiffLinesMinimal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", "d", "}"}
	gen := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return out
	}
	for i := 0; i < 2000; i++ {
		a, b := gen(rng.IntN(30)), gen(rng.IntN(30))
		kept := checkHunks(t, a, b, diffLines(a, b))
		if want := lcsLen(a, b); kept != want {
			t.Fatalf("diffLines(%q, %q) keeps %d lines, the LCS has %d", a, b, kept, want)
		}
	}
}

func TestDiffLinesLarge(t *testing.T) {
	t.Parallel()
	// Above the anchor threshold: the alignment must stay valid and keep
	// nearly every line of a file with a few scattered changes.
	var a []string
	for i := 0; i < 50000; i++ {
		a = append(a, "line "+strings.Repeat("x", i%7)+string(rune('a'+i%26))+itoa(i))
	}
	b := append([]string(nil), a...)
	for _, k := range []int{10, 20000, 20001, 49999} {
		b[k] = "changed"
	}
	b = append(b[:30000], append([]string{"inserted", "}"}, b[30000:]...)...)
	kept := checkHunks(t, a, b, diffLines(a, b))
	if kept != len(a)-4 {
		t.Errorf("kept %d lines, want %d", kept, len(a)-4)
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

func TestDiffLinesLargeRepetitive(t *testing.T) {
	t.Parallel()
	// Many repeated lines make resync points ambiguous; the alignment must
	// still be valid and close to minimal.
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 5; round++ {
		a := make([]string, 6000)
		for i := range a {
			a[i] = []string{"{", "}", "x++", "return", ""}[rng.IntN(5)]
		}
		b := append([]string(nil), a...)
		for k := 0; k < 20; k++ {
			i := rng.IntN(len(b))
			switch rng.IntN(3) {
			case 0:
				b[i] = "changed"
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = append(b[:i], append([]string{"new"}, b[i:]...)...)
			}
		}
		kept := checkHunks(t, a, b, diffLines(a, b))
		if kept < len(a)-40 {
			t.Errorf("round %d: kept %d of %d lines after 20 small changes", round, kept, len(a))
		}
	}
}

package changes

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/edits"
)

func TestMerge3(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name               string
		base, theirs, ours string
		want               string
		conflicts          int
	}{
		{"disjoint edits kept", "a\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "a\nB\nc\nd\nE\n", 0},
		{"same lines conflict", "a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n", "a\nY\nc\n", 1},
		{"same change once", "a\nb\nc\n", "a\nX\nc\n", "a\nX\nc\n", "a\nX\nc\n", 0},
		{"adjacent lines both apply", "a\nb\nc\nd\n", "a\nB\nc\nd\n", "a\nb\nC\nd\n", "a\nB\nC\nd\n", 0},
		{"insert at start and end", "a\nb\n", "0\na\nb\n", "a\nb\nz\n", "0\na\nb\nz\n", 0},
		{"both insert at same place", "a\nb\n", "a\nx\nb\n", "a\ny\nb\n", "a\ny\nb\n", 1},
		{"insert beside a change conflicts", "a\nb\nc\n", "a\nB\nc\n", "a\nb\nnew\nc\n", "a\nb\nnew\nc\n", 1},
		{"crlf kept", "a\r\nb\r\nc\r\nd\r\n", "a\r\nB\r\nc\r\nd\r\n", "a\r\nb\r\nc\r\nD\r\n", "a\r\nB\r\nc\r\nD\r\n", 0},
		{"crlf against lf differs", "a\r\nb\r\n", "a\r\nB\r\n", "a\nb\n", "a\nb\n", 1},
		{"no final newline kept", "a\nb\nc", "A\nb\nc", "a\nb\nc!", "A\nb\nc!", 0},
		{"final newline added by theirs", "a\nb", "a\nb\n", "x\na\nb", "x\na\nb\n", 0},
		{"empty base", "", "x\n", "", "x\n", 0},
		{"theirs deletes all", "a\nb\n", "", "a\nb\n", "", 0},
		{"ours deletes a changed line", "a\nb\nc\n", "a\nB\nc\n", "a\nc\n", "a\nc\n", 1},
	} {
		got, cs := Merge3([]byte(tc.base), []byte(tc.theirs), []byte(tc.ours))
		if string(got) != tc.want || len(cs) != tc.conflicts {
			t.Errorf("%s: Merge3(%q, %q, %q) = %q with %d conflicts, want %q with %d", tc.name, tc.base, tc.theirs, tc.ours, got, len(cs), tc.want, tc.conflicts)
		}
	}
}

func TestMerge3ConflictRegion(t *testing.T) {
	t.Parallel()
	_, cs := Merge3([]byte("a\nb\nc\n"), []byte("a\nX\nc\n"), []byte("new\na\nY\nc\n"))
	if len(cs) != 1 {
		t.Fatalf("Merge3 gave %d conflicts, want 1", len(cs))
	}
	c := cs[0]
	if c.Line != 3 || string(c.Base) != "b\n" || string(c.Theirs) != "X\n" || string(c.Ours) != "Y\n" {
		t.Errorf("conflict = line %d base %q theirs %q ours %q, want line 3 base \"b\\n\" theirs \"X\\n\" ours \"Y\\n\"", c.Line, c.Base, c.Theirs, c.Ours)
	}
}

// TestDiffLinesApplies checks on random texts that the hunks turn a into b,
// are in order and separated by equal lines, and that small distances are
// found exactly.
func TestDiffLinesApplies(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 500; n++ {
		a := randomLines(r, r.IntN(30))
		b := mutateLines(r, a)
		hs := diffLines(a, b)
		var out [][]byte
		c := 0
		for k, h := range hs {
			if h.a0 < c || (k > 0 && h.a0 == c) {
				t.Fatalf("diffLines(%q, %q): hunks %v overlap or touch", a, b, hs)
			}
			out = append(out, a[c:h.a0]...)
			out = append(out, b[h.b0:h.b1]...)
			c = h.a1
		}
		out = append(out, a[c:]...)
		if !bytes.Equal(bytes.Join(out, nil), bytes.Join(b, nil)) {
			t.Fatalf("diffLines(%q, %q) = %v does not give b", a, b, hs)
		}
	}
}

func randomLines(r *rand.Rand, n int) [][]byte {
	lines := make([][]byte, n)
	for i := range lines {
		lines[i] = []byte(string(rune('a'+r.IntN(4))) + "\n")
	}
	return lines
}

func mutateLines(r *rand.Rand, a [][]byte) [][]byte {
	b := append([][]byte(nil), a...)
	for k := r.IntN(5); k > 0; k-- {
		i := r.IntN(len(b) + 1)
		switch r.IntN(3) {
		case 0:
			b = append(b[:i], append([][]byte{[]byte("n\n")}, b[i:]...)...)
		case 1:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		default:
			if i < len(b) {
				b[i] = []byte("m\n")
			}
		}
	}
	return b
}

func TestMyersFallsBack(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		a.WriteString("a\n")
		b.WriteString("b\n")
	}
	hs := diffLines(slices.Collect(bytes.Lines([]byte(a.String()))), slices.Collect(bytes.Lines([]byte(b.String()))))
	if len(hs) != 1 || hs[0] != (hunk{0, 3000, 0, 3000}) {
		t.Errorf("diffLines of two texts that differ everywhere = %v, want one hunk over all", hs)
	}
}

func FuzzMerge3(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nc\nd"))
	f.Add([]byte("a\r\nb"), []byte("b"), []byte(""))
	f.Add([]byte(""), []byte("x\n"), []byte("y"))
	f.Fuzz(func(t *testing.T, base, theirs, ours []byte) {
		if got, cs := Merge3(base, theirs, base); !bytes.Equal(got, theirs) || len(cs) != 0 {
			t.Errorf("Merge3(%q, %q, base) = %q, %d conflicts; want theirs", base, theirs, got, len(cs))
		}
		if got, cs := Merge3(base, base, ours); !bytes.Equal(got, ours) || len(cs) != 0 {
			t.Errorf("Merge3(%q, base, %q) = %q, %d conflicts; want ours", base, ours, got, len(cs))
		}
		if got, cs := Merge3(base, theirs, ours); len(cs) == 0 {
			// A clean merge of the same change on both sides is that change.
			if bytes.Equal(theirs, ours) && !bytes.Equal(got, ours) {
				t.Errorf("Merge3(%q, %q, %q) = %q, want ours", base, theirs, ours, got)
			}
		}
	})
}

// TestLineCountsMatchDiff checks that the counts Begin records are those of
// the diff Diff renders, on random texts.
func TestLineCountsMatchDiff(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 500; n++ {
		a := randomLines(r, r.IntN(30))
		b := mutateLines(r, a)
		if r.IntN(4) == 0 && len(b) > 0 {
			b[len(b)-1] = bytes.TrimSuffix(b[len(b)-1], []byte("\n"))
		}
		before, after := bytes.Join(a, nil), bytes.Join(b, nil)
		_, st := edits.UnifiedDiff("f", "f", string(before), string(after))
		wantAdded, wantRemoved := st.Added, st.Removed
		if added, removed := lineCounts(before, after); added != wantAdded || removed != wantRemoved {
			t.Fatalf("lineCounts(%q, %q) = +%d -%d, want +%d -%d as edits.UnifiedDiff counts", before, after, added, removed, wantAdded, wantRemoved)
		}
	}
}

package edits

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchFixture holds the generated inputs of the benchmarks, so that the
// bench/edits program can measure the same work.
type benchFixture struct {
	source                 string // ~100 000 lines of Go-like code
	exact, tier2, notFound Edit
	tier2Trailing          Edit
	medium                 string // 10 000 lines
	steps                  []Edit // 100 steps over medium
	mixedOld, mixedNew     string
	mixedFormat            Format
}

// sourceLine renders line i of a generated source file (about 50 bytes).
func sourceLine(i int) string {
	return fmt.Sprintf("\tv%06d := compute(%d, \"generated text\") // c\n", i, i%97)
}

func newBenchFixture(lines int) *benchFixture {
	var b strings.Builder
	b.WriteString("package gen\n\nfunc generated() {\n")
	for i := 0; i < lines; i++ {
		if i == lines-1000 {
			// The target block, near the end, with trailing blanks on one line.
			b.WriteString("\tif target {  \n\t\thandle(target)\n\t}\n")
		}
		b.WriteString(sourceLine(i))
	}
	b.WriteString("}\n")
	f := &benchFixture{source: b.String()}
	f.exact = Edit{Search: "\tif target {  \n\t\thandle(target)\n\t}\n", Replace: "\tif target {\n\t\thandle(target, true)\n\t}\n"}
	f.tier2 = Edit{Search: "if target {\n\thandle(target)\n}\n", Replace: "if target {\n\thandle(target, true)\n}\n"}
	f.tier2Trailing = Edit{Search: "\tif target {\n\t\thandle(target)\n\t}\n", Replace: "\tif target {\n\t\thandle(target, true)\n\t}\n"}
	f.notFound = Edit{Search: "\tif target {\n\t\thandle(target, false)\n\t}\n", Replace: "x"}

	var m strings.Builder
	for i := 0; i < 10000; i++ {
		m.WriteString(sourceLine(i))
	}
	f.medium = m.String()
	for k := 0; k < 100; k++ {
		i := k*97 + 13
		f.steps = append(f.steps, Edit{Search: fmt.Sprintf("v%06d := compute", i), Replace: fmt.Sprintf("w%06d := compute", i)})
	}
	return f
}

// newMixedFixture builds a 1 000 000-line file whose lines end in LF, CRLF
// or CR in turn, and an edited version with ten scattered changes.
func newMixedFixture(f *benchFixture, lines int) {
	var b strings.Builder
	ends := []string{"\n", "\r\n", "\n", "\r"}
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "line %d of a mixed file%s", i, ends[i%len(ends)])
	}
	d, err := Decode([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	f.mixedOld, f.mixedFormat = d.Text, d.Format
	text := d.Text
	for k := 0; k < 10; k++ {
		i := k*lines/10 + 7
		text = strings.Replace(text, fmt.Sprintf("line %d of", i), fmt.Sprintf("line %d (edited) of\nan inserted line\n", i), 1)
	}
	f.mixedNew = text
}

var fixture *benchFixture

func benchData(b *testing.B) *benchFixture {
	if fixture == nil {
		fixture = newBenchFixture(100000)
		newMixedFixture(fixture, 1000000)
	}
	b.ResetTimer()
	return fixture
}

func benchApply(b *testing.B, e Edit, wantErr bool) {
	f := benchData(b)
	b.SetBytes(int64(len(f.source)))
	for b.Loop() {
		_, err := Apply(f.source, e)
		if (err != nil) != wantErr {
			b.Fatalf("Apply error = %v, want error %v", err, wantErr)
		}
	}
}

func BenchmarkApplyExact(b *testing.B)         { benchApply(b, benchData(b).exact, false) }
func BenchmarkApplyTier2Indent(b *testing.B)   { benchApply(b, benchData(b).tier2, false) }
func BenchmarkApplyTier2Trailing(b *testing.B) { benchApply(b, benchData(b).tier2Trailing, false) }
func BenchmarkApplyNotFound(b *testing.B)      { benchApply(b, benchData(b).notFound, true) }

func BenchmarkMultiEdit100Steps(b *testing.B) {
	f := benchData(b)
	for b.Loop() {
		if _, err := ApplyAll(context.Background(), f.medium, f.steps); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRestoreMixed1M(b *testing.B) {
	f := benchData(b)
	for b.Loop() {
		Encode(f.mixedFormat, f.mixedOld, f.mixedNew)
	}
}

func BenchmarkDecode100k(b *testing.B) {
	f := benchData(b)
	raw := []byte(f.source)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchFixtureOutcomes(t *testing.T) {
	t.Parallel()
	f := newBenchFixture(2000)
	for name, e := range map[string]Edit{"exact": f.exact, "tier2": f.tier2, "tier2 trailing": f.tier2Trailing} {
		a, err := Apply(f.source, e)
		if err != nil || a.Replacements != 1 {
			t.Errorf("%s: Apply = %+v, %v; want one replacement", name, a.Repairs, err)
		}
		if name != "exact" && len(a.Repairs) == 0 {
			t.Errorf("%s: no repair reported", name)
		}
	}
	if _, err := Apply(f.source, f.notFound); CodeOf(err) != CodeSearchNotFound {
		t.Errorf("notFound: error = %v", err)
	}
	newMixedFixture(f, 1000)
	out := Encode(f.mixedFormat, f.mixedOld, f.mixedNew)
	back, err := Decode(out)
	if err != nil || back.Text != f.mixedNew {
		t.Errorf("mixed restore does not decode to the edited text: %v", err)
	}
	// Untouched lines keep their own endings.
	if !strings.Contains(string(out), "line 2 of a mixed file\nline 3 of a mixed file\r") {
		t.Errorf("restored text lost per-line endings")
	}
}

// Command edits measures the edit engine on generated files and prints each
// cost as a ratio to a baseline measured in the same run, so that the figures
// compare across machines:
//
//   - tier-2 hit / exact hit and not-found diagnosis / exact hit, on a
//     100 000-line (~5 MB) source file with the target near its end
//     (goals: ≤ 3× and ≤ 5×);
//   - multi_edit of 100 steps on a 10 000-line file (goal: under 50 ms),
//     also as a ratio to one exact edit of that file;
//   - restoring the line endings of a 1 000 000-line mixed file after ten
//     scattered edits (goal: under 1 s), also as a ratio to one pass that
//     turns every LF into CRLF;
//   - 100 edits of one closed file through a real whale-ls over stdio, all
//     in flight at once, as a ratio to the same edits sent one after
//     another (goal: <= 1.2x), with p50/p99 latencies.
//
// Run it with: go run ./bench/edits [-bin whale-ls] [-n 100] [-rounds 5]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/edits"
)

func sourceLine(i int) string {
	return fmt.Sprintf("\tv%06d := compute(%d, \"generated text\") // c\n", i, i%97)
}

// generated returns a source file of n lines with a three-line target block
// 1000 lines before its end; its second line has trailing blanks.
func generated(n int) string {
	var b strings.Builder
	b.WriteString("package gen\n\nfunc generated() {\n")
	for i := 0; i < n; i++ {
		if i == n-1000 {
			b.WriteString("\tif target {  \n\t\thandle(target)\n\t}\n")
		}
		b.WriteString(sourceLine(i))
	}
	b.WriteString("}\n")
	return b.String()
}

// measure returns the time per operation of f.
func measure(f func()) time.Duration {
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			f()
		}
	})
	return time.Duration(r.NsPerOp())
}

func mustApply(text string, e edits.Edit, wantErr bool) func() {
	return func() {
		_, err := edits.Apply(text, e)
		if (err != nil) != wantErr {
			fmt.Fprintln(os.Stderr, "unexpected outcome:", err)
			os.Exit(1)
		}
	}
}

func main() {
	bin := flag.String("bin", "", "whale-ls binary for the server figures (default: build it)")
	n := flag.Int("n", 100, "edits per batch in the server figures")
	rounds := flag.Int("rounds", 5, "rounds of the server figures")
	flag.Parse()
	engine()
	if err := serverEdits(*bin, *n, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench/edits:", err)
		os.Exit(1)
	}
}

// engine prints the edit engine's figures.
func engine() {
	src := generated(100000)
	fmt.Printf("source: %d lines, %.1f MB; target near the end\n", strings.Count(src, "\n"), float64(len(src))/1e6)

	exact := measure(mustApply(src, edits.Edit{Search: "\tif target {  \n\t\thandle(target)\n\t}\n", Replace: "\tif target {\n\t\thandle(target, true)\n\t}\n"}, false))
	indent := measure(mustApply(src, edits.Edit{Search: "if target {\n\thandle(target)\n}\n", Replace: "if target {\n\thandle(target, true)\n}\n"}, false))
	trailing := measure(mustApply(src, edits.Edit{Search: "\tif target {\n\t\thandle(target)\n\t}\n", Replace: "\tif target {\n\t\thandle(target, true)\n\t}\n"}, false))
	missing := measure(mustApply(src, edits.Edit{Search: "\tif target {\n\t\thandle(target, false)\n\t}\n", Replace: "x"}, true))

	fmt.Printf("exact hit                         %8.2f ms  (baseline)\n", ms(exact))
	fmt.Printf("tier-2 hit, indentation shifted   %8.2f ms  %5.2fx exact  (goal <= 3x)\n", ms(indent), ratio(indent, exact))
	fmt.Printf("tier-2 hit, trailing whitespace   %8.2f ms  %5.2fx exact  (goal <= 3x)\n", ms(trailing), ratio(trailing, exact))
	fmt.Printf("not found, with diagnosis         %8.2f ms  %5.2fx exact  (goal <= 5x)\n", ms(missing), ratio(missing, exact))

	var m strings.Builder
	for i := 0; i < 10000; i++ {
		m.WriteString(sourceLine(i))
	}
	medium := m.String()
	var steps []edits.Edit
	for k := 0; k < 100; k++ {
		i := k*97 + 13
		steps = append(steps, edits.Edit{Search: fmt.Sprintf("v%06d := compute", i), Replace: fmt.Sprintf("w%06d := compute", i)})
	}
	one := measure(func() { edits.Apply(medium, steps[0]) })
	multi := measure(func() {
		if _, err := edits.ApplyAll(context.Background(), medium, steps); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	})
	fmt.Printf("multi_edit, 100 steps, 10k lines  %8.2f ms  %5.1fx one edit  (goal < 50 ms)\n", ms(multi), ratio(multi, one))

	var mixed strings.Builder
	ends := []string{"\n", "\r\n", "\n", "\r"}
	const lines = 1000000
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&mixed, "line %d of a mixed file%s", i, ends[i%len(ends)])
	}
	d, err := edits.Decode([]byte(mixed.String()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	edited := d.Text
	for k := 0; k < 10; k++ {
		i := k*lines/10 + 7
		edited = strings.Replace(edited, fmt.Sprintf("line %d of", i), fmt.Sprintf("line %d (edited) of\nan inserted line\n", i), 1)
	}
	restore := measure(func() { edits.Encode(d.Format, d.Text, edited) })
	var converted string
	crlf := measure(func() { converted = strings.ReplaceAll(edited, "\n", "\r\n") })
	_ = converted
	fmt.Printf("restore endings, 1M mixed lines   %8.2f ms  %5.1fx one LF->CRLF pass  (goal < 1 s)\n", ms(restore), ratio(restore, crlf))
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

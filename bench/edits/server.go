package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
)

// serverRun is one batch of edits through the server: its wall-clock time
// and each call's latency, sorted.
type serverRun struct {
	total time.Duration
	cpu   time.Duration // the server's processor time for the batch
	lat   []time.Duration
}

func (r serverRun) pct(p int) time.Duration { return r.lat[len(r.lat)*p/100] }

// serverEdits measures n edits of one closed file, each changing its own
// line, through a real whale-ls over stdio: sent one after another (the
// baseline), then all n in flight at once, alternating for rounds rounds.
// It prints the median of each and the parallel/sequential ratio (goal
// <= 1.2x: serialising the commits must cost nothing beyond the commits).
func serverEdits(bin string, n, rounds int) error {
	dir, ws, bin, cleanup, err := benchserver.Setup("whale-bench-edits", bin)
	if err != nil {
		return err
	}
	defer cleanup()
	srv, err := benchserver.Start(bin, ws, nil, []string{"XDG_RUNTIME_DIR=" + dir}, io.Discard)
	if err != nil {
		return err
	}
	defer srv.Close()
	conn, ctx := srv.Conn, context.Background()

	file := filepath.Join(ws, "p.txt")
	var lines strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, "line %04d = 0 // a line of a file the model edits in parallel\n", i)
	}
	edit := func(i int) (time.Duration, error) {
		params := map[string]any{"command": "whale.edit", "arguments": []any{map[string]any{
			"file_path": "p.txt", "search": fmt.Sprintf("line %04d = 0", i), "replace": fmt.Sprintf("line %04d = 1", i),
		}}}
		var res struct {
			OK   bool   `json:"ok"`
			Code string `json:"code"`
			Text string `json:"text"`
		}
		t0 := time.Now()
		_, err := conn.Call(ctx, "workspace/executeCommand", params, &res)
		if err == nil && !res.OK {
			err = fmt.Errorf("edit of line %d: %s %s", i, res.Code, res.Text)
		}
		return time.Since(t0), err
	}
	batch := func(parallel bool) (serverRun, error) {
		if err := os.WriteFile(file, []byte(lines.String()), 0o644); err != nil {
			return serverRun{}, err
		}
		r := serverRun{lat: make([]time.Duration, n)}
		errs := make([]error, n)
		cpu0, _ := srv.CPU()
		start := time.Now()
		if parallel {
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { r.lat[i], errs[i] = edit(i) })
			}
			wg.Wait()
		} else {
			for i := range n {
				r.lat[i], errs[i] = edit(i)
			}
		}
		r.total = time.Since(start)
		cpu1, _ := srv.CPU()
		r.cpu = cpu1 - cpu0
		slices.Sort(r.lat)
		if err := errorsJoin(errs); err != nil {
			return r, err
		}
		got, _ := os.ReadFile(file)
		if c := strings.Count(string(got), "= 1"); c != n {
			return r, fmt.Errorf("%d of %d edits are in the file", c, n)
		}
		return r, nil
	}
	if _, err := batch(false); err != nil { // warm up
		return err
	}
	var seq, par []serverRun
	for range rounds {
		s, err := batch(false)
		if err != nil {
			return err
		}
		p, err := batch(true)
		if err != nil {
			return err
		}
		seq, par = append(seq, s), append(par, p)
	}
	median := func(rs []serverRun) serverRun {
		slices.SortFunc(rs, func(a, b serverRun) int { return int(a.total - b.total) })
		return rs[len(rs)/2]
	}
	s, p := median(seq), median(par)
	cpuOf := func(rs []serverRun) time.Duration {
		var sum time.Duration
		for _, r := range rs {
			sum += r.cpu
		}
		return sum / time.Duration(len(rs))
	}
	fmt.Printf("%d edits of one closed file through the server, median of %d rounds\n", n, rounds)
	fmt.Printf("  one after another  %8.1f ms total   p50 %6.2f ms   p99 %6.2f ms  (baseline)\n", ms(s.total), ms(s.pct(50)), ms(s.pct(99)))
	fmt.Printf("  all %d in flight  %8.1f ms total   p50 %6.2f ms   p99 %6.2f ms  %5.2fx  (goal <= 1.2x)\n", n, ms(p.total), ms(p.pct(50)), ms(p.pct(99)), ratio(p.total, s.total))
	if sc, pc := cpuOf(seq), cpuOf(par); sc > 0 {
		fmt.Printf("  server CPU per batch, mean: %.0f ms one after another, %.0f ms in flight  %5.2fx\n", ms(sc), ms(pc), ratio(pc, sc))
	}
	return nil
}

func errorsJoin(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

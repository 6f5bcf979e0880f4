// Command rpc measures whale.read_file round trips over real stdio: it
// starts the whale-ls binary, reads a 4 KiB file sequentially and then with
// several calls in flight, and prints calls/s with p50 and p99 latencies.
//
//	go run ./bench/rpc [-bin path/to/whale-ls] [-n 20000] [-inflight 8]
//
// Without -bin it builds whale-ls first. Figures depend on the machine; the
// sequential run is the baseline the concurrent run is compared with.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
)

func main() {
	bin := flag.String("bin", "", "whale-ls binary (default: build it)")
	n := flag.Int("n", 20000, "calls per run")
	inflight := flag.Int("inflight", 8, "calls in flight in the concurrent run")
	cpuProfile := flag.String("cpuprofile", "", "have the server write a CPU profile to this file")
	flag.Parse()
	if err := run(*bin, *n, *inflight, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "bench/rpc:", err)
		os.Exit(1)
	}
}

func run(bin string, n, inflight int, cpuProfile string) error {
	_, ws, bin, cleanup, err := benchserver.Setup("whale-bench-rpc", bin)
	if err != nil {
		return err
	}
	defer cleanup()
	var content strings.Builder
	for i := 0; content.Len() < 4096-40; i++ {
		fmt.Fprintf(&content, "line %04d: the quick brown fox jumps\n", i)
	}
	if err := os.WriteFile(filepath.Join(ws, "file.txt"), []byte(content.String()), 0o644); err != nil {
		return err
	}
	var args []string
	if cpuProfile != "" {
		args = append(args, "--cpuprofile", cpuProfile)
	}
	srv, err := benchserver.Start(bin, ws, args, nil, os.Stderr)
	if err != nil {
		return err
	}
	defer srv.Close() // the server writes its profile as it exits
	conn, ctx := srv.Conn, context.Background()
	params := map[string]any{"command": "whale.read_file", "arguments": []any{map[string]any{"file_path": "file.txt"}}}
	var sample struct {
		OK   bool   `json:"ok"`
		Text string `json:"text"`
	}
	if _, err := conn.Call(ctx, "workspace/executeCommand", params, &sample); err != nil || !sample.OK {
		return fmt.Errorf("read_file failed: %v %q", err, sample.Text)
	}
	for i := 0; i < 500; i++ { // warm up
		conn.Call(ctx, "workspace/executeCommand", params, nil)
	}
	measure := func(workers int) (float64, time.Duration, time.Duration, error) {
		lat := make([]time.Duration, n)
		var next atomic.Int64
		var wg sync.WaitGroup
		var firstErr atomic.Value
		start := time.Now()
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1) - 1
					if i >= int64(n) {
						return
					}
					t0 := time.Now()
					var res struct {
						OK bool `json:"ok"`
					}
					if _, err := conn.Call(ctx, "workspace/executeCommand", params, &res); err != nil || !res.OK {
						firstErr.CompareAndSwap(nil, fmt.Errorf("call failed: %v", err))
					}
					lat[i] = time.Since(t0)
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		if e, _ := firstErr.Load().(error); e != nil {
			return 0, 0, 0, e
		}
		slices.Sort(lat)
		return float64(n) / elapsed.Seconds(), lat[n/2], lat[n*99/100], nil
	}
	seqRate, seqP50, seqP99, err := measure(1)
	if err != nil {
		return err
	}
	conRate, conP50, conP99, err := measure(inflight)
	if err != nil {
		return err
	}
	fmt.Printf("whale.read_file on a %d-byte file over stdio, %d calls per run\n", content.Len(), n)
	fmt.Printf("%-14s %12s %10s %10s\n", "run", "calls/s", "p50", "p99")
	fmt.Printf("%-14s %12.0f %10s %10s\n", "sequential", seqRate, seqP50.Round(time.Microsecond), seqP99.Round(time.Microsecond))
	fmt.Printf("%-14s %12.0f %10s %10s\n", fmt.Sprintf("%d in flight", inflight), conRate, conP50.Round(time.Microsecond), conP99.Round(time.Microsecond))
	fmt.Printf("ratio %d in flight / sequential: %.2fx\n", inflight, conRate/seqRate)
	return nil
}

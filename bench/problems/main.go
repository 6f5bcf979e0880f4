// Command problems measures what reporting the problems an edit introduced
// costs the edit: the latency of edits through a real whale-ls over stdio
// whose editor (played here) declares languageFeatures and answers
// whale/diagnostics like a language server that publishes a file's
// diagnostics a fixed delay after the file changed. It prints p50 and p99
// per case, as ratios to the same edits with edits.problemsWaitMs = 0
// measured in the same run:
//
//   - off: problemsWaitMs 0 (the baseline);
//   - on: the default bound, the editor counting each file's publications
//     (whale/diagnostics "published"), as both editors do;
//   - on, not counted: the same without the counts, where a clean edit of a
//     clean file can only wait out the bound.
//
// Each case runs clean edits (a value changes) and, separately, edits that
// alternately introduce an error and fix it.
//
// Usage:
//
//	go run ./bench/problems [-bin whale-ls] [-n 20] [-delay 50ms]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
)

func main() {
	bin := flag.String("bin", "", "whale-ls binary (default: built from this module)")
	n := flag.Int("n", 20, "edits per case")
	delay := flag.Duration("delay", 50*time.Millisecond, "the played language server's time from a change to its diagnostics")
	flag.Parse()
	if err := run(*bin, *n, *delay); err != nil {
		fmt.Fprintln(os.Stderr, "bench/problems:", err)
		os.Exit(1)
	}
}

// languageServer plays a language server watching one file on disk: delay
// after the file's text changed, it publishes the diagnostics of the new
// text (one error while the text holds "undefinedName").
type languageServer struct {
	path  string
	delay time.Duration

	mu        sync.Mutex
	text      string // the text last published for
	errors    int
	published int64
}

func (ls *languageServer) watch(ctx context.Context) {
	for ctx.Err() == nil {
		time.Sleep(2 * time.Millisecond)
		b, err := os.ReadFile(ls.path)
		if err != nil {
			continue
		}
		ls.mu.Lock()
		changed := string(b) != ls.text
		ls.mu.Unlock()
		if !changed {
			continue
		}
		time.Sleep(ls.delay)
		ls.mu.Lock()
		ls.text = string(b)
		ls.errors = strings.Count(ls.text, "undefinedName")
		ls.published++
		ls.mu.Unlock()
	}
}

// answer is whale/diagnostics as the editor answers it.
func (ls *languageServer) answer(counted bool) map[string]any {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	uri := "file://" + ls.path
	items := []any{}
	for range ls.errors {
		items = append(items, map[string]any{"uri": uri, "severity": 1, "message": "undefined: undefinedName", "source": "compiler",
			"range": map[string]any{"start": map[string]any{"line": 2, "character": 8}, "end": map[string]any{"line": 2, "character": 21}}})
	}
	res := map[string]any{"items": items}
	if counted {
		res["published"] = map[string]int64{uri: ls.published}
	}
	return res
}

// benchCase is one server setting.
type benchCase struct {
	name    string
	waitMs  int
	counted bool
}

func run(bin string, n int, delay time.Duration) error {
	dir, ws, bin, cleanup, err := benchserver.Setup("whale-bench-problems", bin)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Printf("machine: %d CPUs, load average %s; the played language server publishes %s after a change; %d edits per case\n",
		runtime.NumCPU(), benchserver.LoadAvg(), delay, n)
	cases := []benchCase{{"off (problemsWaitMs 0)", 0, true}, {"on, counted (default bound)", 1500, true}, {"on, not counted", 1500, false}}
	type result struct{ clean, errs []time.Duration }
	results := make([]result, len(cases))
	for i, c := range cases {
		clean, errs, err := measure(bin, filepath.Join(dir, "run"), ws, c, n, delay)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		results[i] = result{clean, errs}
	}
	base := results[0]
	for i, c := range cases {
		r := results[i]
		fmt.Printf("%-28s clean edit  p50 %7.1f ms (%5.1fx)  p99 %7.1f ms (%5.1fx)\n", c.name,
			ms(pct(r.clean, 50)), ratio(pct(r.clean, 50), pct(base.clean, 50)), ms(pct(r.clean, 99)), ratio(pct(r.clean, 99), pct(base.clean, 99)))
		fmt.Printf("%-28s error/fix   p50 %7.1f ms (%5.1fx)  p99 %7.1f ms (%5.1fx)\n", "",
			ms(pct(r.errs, 50)), ratio(pct(r.errs, 50), pct(base.errs, 50)), ms(pct(r.errs, 99)), ratio(pct(r.errs, 99), pct(base.errs, 99)))
	}
	return nil
}

// measure runs n clean edits and n error/fix edits of one closed file
// through a server set up as c, returning their latencies, sorted.
func measure(bin, runDir, ws string, c benchCase, n int, delay time.Duration) (clean, errs []time.Duration, err error) {
	file := filepath.Join(ws, "a.go")
	if err := os.WriteFile(file, []byte("package a\n\nvar x = 0\n"), 0o644); err != nil {
		return nil, nil, err
	}
	ls := &languageServer{path: file, delay: delay}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go ls.watch(ctx)
	handler := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "whale/diagnostics" {
			return ls.answer(c.counted), nil
		}
		return jsonrpc2.MethodNotFoundHandler(ctx, req)
	}
	os.MkdirAll(runDir, 0o700)
	srv, err := benchserver.StartEditor(bin, ws, nil, []string{"XDG_RUNTIME_DIR=" + runDir}, io.Discard, benchserver.Editor{
		Whale:       map[string]any{"languageFeatures": true},
		InitOptions: map[string]any{"edits": map[string]any{"problemsWaitMs": c.waitMs}},
		Handler:     handler,
	})
	if err != nil {
		return nil, nil, err
	}
	defer srv.Close()
	value := 0
	edit := func(search, replace, want string) (time.Duration, error) {
		params := map[string]any{"command": "whale.edit", "arguments": []any{map[string]any{"file_path": "a.go", "search": search, "replace": replace}}}
		var res struct {
			OK   bool   `json:"ok"`
			Text string `json:"text"`
		}
		t0 := time.Now()
		if _, err := srv.Conn.Call(ctx, "workspace/executeCommand", params, &res); err != nil {
			return 0, err
		}
		took := time.Since(t0)
		if !res.OK || c.waitMs > 0 && !strings.Contains(res.Text, want) {
			return 0, fmt.Errorf("edit %q → %q: %q, want %q in it", search, replace, res.Text, want)
		}
		return took, nil
	}
	// Wait until the played language server saw the first text.
	for ls.answer(true)["published"].(map[string]int64)["file://"+file] == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	wantClean := "No new problems in the changed files"
	if _, err := edit("var x = 0", "var x = 1", wantClean); err != nil { // warm up: the first call sets the session up
		return nil, nil, err
	}
	value++
	for range n {
		d, err := edit(fmt.Sprintf("var x = %d", value), fmt.Sprintf("var x = %d", value+1), wantClean)
		if err != nil {
			return nil, nil, err
		}
		value++
		clean = append(clean, d)
	}
	for i := range n {
		search, replace, want := fmt.Sprintf("var x = %d", value), "var x = undefinedName", "The change introduced 1 problem"
		if i%2 == 1 {
			search, replace, want = "var x = undefinedName", fmt.Sprintf("var x = %d", value), wantClean
		}
		d, err := edit(search, replace, want)
		if err != nil {
			return nil, nil, err
		}
		errs = append(errs, d)
	}
	if os.Getenv("BENCH_PROBLEMS_TRACE") != "" {
		fmt.Println(c.name, clean, errs)
	}
	slices.Sort(clean)
	slices.Sort(errs)
	return clean, errs, nil
}

func pct(ds []time.Duration, p int) time.Duration {
	i := min(len(ds)-1, len(ds)*p/100)
	return ds[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

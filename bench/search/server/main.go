// Command server times grep and search_files through a running whale-ls
// (one workspace/executeCommand round trip per call, the file index and its
// content filter warm) against ripgrep run as a process in the same run,
// checks that both find the same matches, and reports the index's build
// time (with rg --files on the same tree as the yardstick), how long after
// the index the content filter's first pass is done (and the server's
// processor time meanwhile, which swings less with the load) and its size, the
// server's memory above an idle server's (once the filter's first pass is
// done, after 20 mixed searches with the caps a model gets, and at the end,
// after the timed cases, which ask for every match), and how soon a new
// file is found.
//
//	go run ./bench/search/server [-tree DIR] [-copies N] [-unique] [-keep DIR] [-runs 7] [-bin whale-ls]
//
// -copies N searches a folder holding N copies of the tree instead (hard
// links, so that the copies cost no disk and share one page cache: both
// sides read the same cached bytes); with -unique the copies are real and
// every file of copy K ends with a line naming K, so that no two copies
// share a content (as in a monorepo, and unlike hard links, whose copies the
// content filter stores once). -keep DIR makes the copies in DIR and leaves
// them there, or searches those an earlier run with the same -copies and
// -unique left in it, so that runs alternating two binaries (-bin) skip the
// copying. Without -bin it builds whale-ls.
// Same matches means: the same number of matching files and lines (from
// the Envelope's data), and the same path:count set whenever the tool's
// text is not cut (the Envelope carries 64 KiB of text).
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
	"github.com/whale-ls/whale-ls/internal/syncbuf"
)

func main() {
	out, _ := exec.Command("go", "env", "GOROOT").Output()
	tree := flag.String("tree", filepath.Join(strings.TrimSpace(string(out)), "src"), "folder to search")
	copies := flag.Int("copies", 0, "search N hard-linked copies of the tree under one folder (0: the tree itself)")
	unique := flag.Bool("unique", false, "with -copies: real copies whose every file differs from the other copies'")
	runs := flag.Int("runs", 7, "timed runs per case, after one warm-up; the median is reported")
	changes := flag.Int("changes", 50, "files created to time how soon grep finds them")
	bin := flag.String("bin", "", "whale-ls binary (default: build it)")
	cpuProfile := flag.String("cpuprofile", "", "have the server write a CPU profile to this file")
	keep := flag.String("keep", "", "with -copies: make the copies in this folder and leave them, or reuse those made there before")
	flag.Parse()
	ok, err := run(*tree, *copies, *unique, *keep, *runs, *changes, *bin, *cpuProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/search/server:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

type benchCase struct {
	name string
	goal float64 // the largest whale/rg ratio accepted
	kind string  // "grep", "icase" or "files"
	arg  string
}

func run(tree string, copies int, unique bool, keep string, runs, changes int, bin, cpuProfile string) (bool, error) {
	if _, err := exec.LookPath("rg"); err != nil {
		return false, fmt.Errorf("ripgrep (rg) is not installed; install it (Debian: apt-get install ripgrep) and run again")
	}
	dir, err := os.MkdirTemp("", "whale-bench-search")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	bin, err = benchserver.Binary(bin, dir)
	if err != nil {
		return false, err
	}
	ws := tree
	large := copies > 0
	if large {
		ws = filepath.Join(dir, "ws")
		if keep != "" {
			ws = filepath.Join(keep, fmt.Sprintf("copies%d-unique%t", copies, unique))
		}
		made := ws + ".made" // beside the folder: not a file it searches
		if _, err := os.Stat(made); err == nil {
			copies = 0 // made by an earlier run
		} else if err := os.MkdirAll(ws, 0o755); err != nil {
			return false, err
		}
		for i := range copies {
			copyDir := filepath.Join(ws, fmt.Sprintf("copy%02d", i))
			if !unique {
				if out, err := exec.Command("cp", "-al", tree, copyDir).CombinedOutput(); err != nil {
					return false, fmt.Errorf("cp -al: %v\n%s", err, out)
				}
				continue
			}
			if out, err := exec.Command("cp", "-r", tree, copyDir).CombinedOutput(); err != nil {
				return false, fmt.Errorf("cp -r: %v\n%s", err, out)
			}
			if err := markCopy(copyDir, i); err != nil {
				return false, err
			}
		}
		if keep != "" {
			if err := os.WriteFile(made, nil, 0o644); err != nil {
				return false, err
			}
		}
	}
	rgFiles := func() []string {
		return []string{"rg", "--files", "--hidden", "--no-require-git", "--no-ignore-global"}
	}
	nFiles := bytes.Count(mustOutput(ws, rgFiles()...), []byte("\n"))
	rgFilesMs := measure(runs, func() { mustOutput(ws, rgFiles()...) })

	// A server on an empty folder is the baseline for the index's memory.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	base, err := benchserver.Start(bin, empty, nil, nil, nil)
	if err != nil {
		return false, err
	}
	callTool(base, "search_files", map[string]any{"pattern": "*"})
	baseRSS := rssKiB(base)
	base.Close()

	var logs syncbuf.Buffer
	t0 := time.Now()
	var args []string
	if cpuProfile != "" {
		args = append(args, "--cpuprofile", cpuProfile)
	}
	srv, err := benchserver.Start(bin, ws, args, nil, &logs)
	if err != nil {
		return false, err
	}
	defer srv.Close()
	// Wait for the log line, not by calling: until the index is ready a
	// call walks the tree, which would slow the build it waits for.
	for !strings.Contains(logs.String(), "file index ready") && !strings.Contains(logs.String(), "file index off") && time.Since(t0) < 10*time.Minute {
		time.Sleep(5 * time.Millisecond)
	}
	cpuAtIndex, _ := srv.CPU()
	// Then for the content filter's first pass, which reads every file once.
	for !strings.Contains(logs.String(), "file contents indexed") && !strings.Contains(logs.String(), "file index off") && time.Since(t0) < 10*time.Minute {
		time.Sleep(5 * time.Millisecond)
	}
	cpuAtFilter, _ := srv.CPU()
	contentMs, filterBytes := -1.0, 0.0
	if m := regexp.MustCompile(`file contents indexed.* filterBytes=(\d+) ms=(\d+)`).FindStringSubmatch(logs.String()); m != nil {
		filterBytes, _ = strconv.ParseFloat(m[1], 64)
		contentMs, _ = strconv.ParseFloat(m[2], 64)
	}
	if env := callTool(srv, "search_files", map[string]any{"pattern": "no-such-file"}); env.Data["index"] != "ready" {
		return false, fmt.Errorf("the file index is %v, not ready; server log:\n%s", env.Data["index"], logs.String())
	}
	buildMs := -1.0
	if m := regexp.MustCompile(`file index ready.* ms=(\d+)`).FindStringSubmatch(logs.String()); m != nil {
		buildMs, _ = strconv.ParseFloat(m[1], 64)
	}
	rss := rssKiB(srv)
	loadAtFilter := loadAvg()
	// Memory: once the filter is ready, and after 20 mixed searches (with
	// the default caps a model gets: greps in each output mode, with and
	// without -i, a path or trigrams, and file-name searches).
	sub, deep := "net", "bufio"
	if large {
		sub, deep = "copy03", "copy07/bufio"
	}
	mixed := []struct {
		tool  string
		input map[string]any
	}{
		{"grep", map[string]any{"pattern": "func main"}},
		{"grep", map[string]any{"pattern": "content-type", "case_insensitive": true}},
		{"grep", map[string]any{"pattern": `func \w+Handler\(`}},
		{"grep", map[string]any{"pattern": `\b[A-Z]{3,}_[A-Z]+\b`, "output_mode": "count"}},
		{"search_files", map[string]any{"pattern": "*_test.go"}},
		{"grep", map[string]any{"pattern": "TODO", "output_mode": "files"}},
		{"grep", map[string]any{"pattern": "errors.New", "output_mode": "count"}},
		{"grep", map[string]any{"pattern": "return nil", "path": sub}},
		{"search_files", map[string]any{"pattern": "**/*.go"}},
		{"grep", map[string]any{"pattern": "sync.Mutex", "output_mode": "files"}},
		{"grep", map[string]any{"pattern": `\bfunc\b`, "output_mode": "count"}},
		{"grep", map[string]any{"pattern": "http.Handler", "case_insensitive": true}},
		{"search_files", map[string]any{"pattern": "*.s"}},
		{"grep", map[string]any{"pattern": "package main", "output_mode": "files"}},
		{"grep", map[string]any{"pattern": "unsafe.Pointer"}},
		{"grep", map[string]any{"pattern": `[0-9]+ms`}},
		{"grep", map[string]any{"pattern": "go:build", "output_mode": "count"}},
		{"search_files", map[string]any{"pattern": "*"}},
		{"grep", map[string]any{"pattern": "NewReader", "path": deep}},
		{"grep", map[string]any{"pattern": `panic\(`, "output_mode": "files", "include": "*.go"}},
	}
	for _, m := range mixed {
		callTool(srv, m.tool, m.input)
	}
	rssMixed, loadMixed := rssKiB(srv), loadAvg()

	cases := []benchCase{
		{"literal: func main", 0.6, "grep", "func main"},
		{"-i content-type", 0.8, "icase", "content-type"},
		{`func \w+Handler\(`, 0.8, "grep", `func \w+Handler\(`},
		{`\b[A-Z]{3,}_[A-Z]+\b`, 1.2, "grep", `\b[A-Z]{3,}_[A-Z]+\b`},
		{"files **/*_test.go", 0.2, "files", "*_test.go"},
	}
	if large {
		// The goals set for the large tree, and only those cases: each
		// search there takes seconds on both sides.
		cases = []benchCase{cases[0], cases[4]}
		cases[0].goal, cases[1].goal = 0.5, 0.1
	}
	allOK := true
	fmt.Printf("%-26s %9s %9s %7s %6s %8s %8s %7s  %s\n", "case", "rg ms", "whale ms", "ratio", "goal", "rg cpu", "wh cpu", "ratio", "same matches")
	for _, c := range cases {
		rgArgs, input, countInput := caseArgs(c)
		rgMs, whMs, rgCPU, whCPU := alternate(runs, srv, func() time.Duration { return runCPU(ws, rgArgs...) }, func() { callTool(srv, toolOf(c), input) })
		same, ok := compare(ws, srv, c, countInput)
		ratio := whMs / rgMs
		if c.goal > 0 && ratio > c.goal {
			same += "; OVER GOAL"
			ok = false
		}
		allOK = allOK && ok
		goal := "-"
		if c.goal > 0 {
			goal = fmt.Sprintf("%.1fx", c.goal)
		}
		fmt.Printf("%-26s %9.1f %9.1f %6.2fx %6s %8.1f %8.1f %6.2fx  %s\n", c.name, rgMs, whMs, ratio, goal, rgCPU, whCPU, whCPU/rgCPU, same)
	}

	// How soon grep finds a new file: write it, then grep for the word only
	// it holds (include: its name, so that the time is the index's drain
	// and listing plus one file, not a search of the whole tree), until
	// found.
	var lat []time.Duration
	extra := 0
	for i := range changes {
		word := fmt.Sprintf("whaleNewWord%06dX", i)
		p := filepath.Join(ws, fmt.Sprintf("whale-bench-new-%d.txt", i))
		start := time.Now()
		if err := os.WriteFile(p, []byte(word+"\n"), 0o644); err != nil {
			return false, err
		}
		for n := 0; ; n++ {
			env := callTool(srv, "grep", map[string]any{"pattern": word, "fixed_strings": true, "output_mode": "files", "include": "whale-bench-new-*.txt"})
			if strings.Contains(env.Text, filepath.Base(p)) {
				break
			}
			extra++
			if n > 1000 {
				return false, fmt.Errorf("grep did not find %s after 1000 calls", p)
			}
		}
		lat = append(lat, time.Since(start))
		os.Remove(p)
	}
	slices.Sort(lat)
	limitRatio := func(ms float64, goal float64) string {
		r := ms / rgFilesMs
		if r > goal {
			allOK = false
			return fmt.Sprintf("%.2fx (OVER GOAL %.1fx)", r, goal)
		}
		return fmt.Sprintf("%.2fx (goal %.1fx)", r, goal)
	}
	fmt.Printf("index build: %.0f ms, rg --files %.1f ms: %s\n", buildMs, rgFilesMs, limitRatio(buildMs, 1.5))
	fmt.Printf("content filter: first pass done %.0f ms after the index (in the background; load %s; server CPU %d ms meanwhile), filters %.1f MiB\n", contentMs, loadAtFilter, (cpuAtFilter - cpuAtIndex).Milliseconds(), filterBytes/(1<<20))
	above := func(kib int64) string {
		return fmt.Sprintf("%.1f MiB above idle (%.0f bytes per file)", float64(kib-baseRSS)/1024, float64(kib-baseRSS)*1024/float64(nFiles))
	}
	rssEnd := rssKiB(srv)
	fmt.Printf("server RSS: idle (empty folder) %.1f MiB; with the index and filter %.1f MiB, %s\n", float64(baseRSS)/1024, float64(rss)/1024, above(rss))
	fmt.Printf("server RSS after %d mixed searches (default caps): %.1f MiB, %s (load %s)\n", len(mixed), float64(rssMixed)/1024, above(rssMixed), loadMixed)
	fmt.Printf("server RSS at the end (after the cases above, uncapped): %.1f MiB, %s (load %s)\n", float64(rssEnd)/1024, above(rssEnd), loadAvg())
	if len(lat) > 0 {
		fmt.Printf("new file found by grep (whole tree, include its name): p50 %s, p99 %s over %d files, from write to answer; calls that missed it: %d\n",
			lat[len(lat)/2].Round(time.Microsecond), lat[(len(lat)*99)/100].Round(time.Microsecond), len(lat), extra)
		if extra > 0 {
			allOK = false
		}
	}
	rgVersion := strings.SplitN(string(mustOutput(ws, "rg", "--version")), "\n", 2)[0]
	fmt.Printf("tree: %s (%d files); median of %d runs after a warm-up; %d CPUs; load average %s; %s\n",
		ws, nFiles, runs, runtime.NumCPU(), loadAvg(), rgVersion)
	fmt.Println("timed: rg as a process; whale as one executeCommand round trip to the running server")
	return allOK, nil
}

// markCopy appends a line naming copy i to every regular file below dir.
func markCopy(dir string, i int) error {
	line := []byte(fmt.Sprintf("\n// whale bench copy %02d\n", i))
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil // read-only test data: left as it is
		}
		_, err = f.Write(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

func toolOf(c benchCase) string {
	if c.kind == "files" {
		return "search_files"
	}
	return "grep"
}

// caseArgs returns rg's command line, the tool input that is timed, and the
// tool input whose output is compared.
func caseArgs(c benchCase) (rg []string, timed, compared map[string]any) {
	if c.kind == "files" {
		in := map[string]any{"pattern": "**/" + c.arg, "max_results": 1 << 30}
		return []string{"rg", "--files", "--hidden", "--no-require-git", "--no-ignore-global", "-g", c.arg}, in, in
	}
	rg = []string{"rg", "--hidden", "--no-require-git", "--no-ignore-global", "-n", "--no-heading", "--with-filename", "--color", "never"}
	timed = map[string]any{"pattern": c.arg, "max_results": 1 << 30}
	compared = map[string]any{"pattern": c.arg, "output_mode": "count", "max_results": 1 << 30}
	if c.kind == "icase" {
		rg = append(rg, "-i")
		timed["case_insensitive"], compared["case_insensitive"] = true, true
	}
	return append(rg, "-e", c.arg), timed, compared
}

// compare checks whale's answer against rg's: totals always, the
// path:count (or path) set when whale's text is whole.
func compare(ws string, srv *benchserver.Server, c benchCase, input map[string]any) (string, bool) {
	env := callTool(srv, toolOf(c), input)
	var want []string
	if c.kind == "files" {
		for _, l := range strings.Split(strings.TrimSpace(string(mustOutput(ws, "rg", "--files", "--hidden", "--no-require-git", "--no-ignore-global", "-g", c.arg))), "\n") {
			want = append(want, strings.TrimPrefix(l, "./"))
		}
		if int(num(env.Data["files"])) != len(want) {
			return fmt.Sprintf("NO: rg %d files, whale %v", len(want), env.Data["files"]), false
		}
	} else {
		args := []string{"rg", "--hidden", "--no-require-git", "--no-ignore-global", "--count", "--with-filename", "--color", "never"}
		if c.kind == "icase" {
			args = append(args, "-i")
		}
		lines := 0
		sc := bufio.NewScanner(bytes.NewReader(mustOutput(ws, append(args, "-e", c.arg)...)))
		for sc.Scan() {
			l := strings.TrimPrefix(sc.Text(), "./")
			i := strings.LastIndexByte(l, ':')
			n, _ := strconv.Atoi(l[i+1:])
			lines += n
			want = append(want, l[:i]+": "+l[i+1:])
		}
		if int(num(env.Data["files"])) != len(want) || int(num(env.Data["matches"])) != lines {
			return fmt.Sprintf("NO: rg %d files %d lines, whale %v files %v lines", len(want), lines, env.Data["files"], env.Data["matches"]), false
		}
	}
	if env.Truncated {
		return fmt.Sprintf("yes (%d files; totals only, the text is cut)", len(want)), true
	}
	got := strings.Split(strings.TrimSpace(env.Text), "\n")
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return "NO: the sets differ", false
	}
	return fmt.Sprintf("yes (%d files)", len(want)), true
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

type envelope struct {
	OK        bool           `json:"ok"`
	Text      string         `json:"text"`
	Data      map[string]any `json:"data"`
	Truncated bool           `json:"truncated"`
}

func callTool(srv *benchserver.Server, tool string, input map[string]any) envelope {
	var env envelope
	params := map[string]any{"command": "whale." + tool, "arguments": []any{input}}
	if _, err := srv.Conn.Call(context.Background(), "workspace/executeCommand", params, &env); err != nil || !env.OK {
		fmt.Fprintf(os.Stderr, "bench/search/server: %s %v failed: %v %s\n", tool, input, err, env.Text)
		os.Exit(2)
	}
	return env
}

// alternate times rg and whale in turn (one warm-up each, then runs
// pairs), so that both see the same machine load, and returns their median
// wall times and mean CPU times (user + system) in milliseconds: rg's from
// its process, whale's from the server's (counted in 10 ms ticks, so the
// mean over all runs is what is precise).
func alternate(runs int, srv *benchserver.Server, rg func() time.Duration, whale func()) (rgMs, whMs, rgCPU, whCPU float64) {
	rg()
	whale()
	var rgWall, whWall []float64
	var rgSum, whSum time.Duration
	for range runs {
		t := time.Now()
		rgSum += rg()
		rgWall = append(rgWall, float64(time.Since(t).Microseconds())/1000)
		c0, _ := srv.CPU()
		t = time.Now()
		whale()
		whWall = append(whWall, float64(time.Since(t).Microseconds())/1000)
		c1, _ := srv.CPU()
		whSum += c1 - c0
	}
	slices.Sort(rgWall)
	slices.Sort(whWall)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(runs) }
	return rgWall[runs/2], whWall[runs/2], ms(rgSum), ms(whSum)
}

// runCPU runs rg and returns the CPU time it used. Its output goes through
// a pipe and is dropped (rg would notice /dev/null and stop early).
func runCPU(dir string, args ...string) time.Duration {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
			fmt.Fprintf(os.Stderr, "bench/search/server: %v: %v\n", args, err)
			os.Exit(2)
		}
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// measure runs fn once to warm up, then runs times, and returns the median
// wall time in milliseconds.
func measure(runs int, fn func()) float64 {
	fn()
	var ms []float64
	for range runs {
		t := time.Now()
		fn()
		ms = append(ms, float64(time.Since(t).Microseconds())/1000)
	}
	slices.Sort(ms)
	return ms[len(ms)/2]
}

func mustOutput(dir string, args ...string) []byte {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		if ee, ok := errors.AsType[*exec.ExitError](err); ok && ee.ExitCode() == 1 {
			return nil // no match
		}
		fmt.Fprintf(os.Stderr, "bench/search/server: %v: %v\n", args, err)
		os.Exit(2)
	}
	return out
}

// loadAvg is the machine's 1, 5 and 15 minute load averages.
func loadAvg() string { return benchserver.LoadAvg() }

// rssKiB is the server's resident memory (VmRSS) in KiB.
func rssKiB(srv *benchserver.Server) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", srv.Pid()))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

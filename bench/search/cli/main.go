// Command cli times `whale-ls call grep` as scripts and command-line hosts
// run it, in its two modes, against ripgrep on the same tree in the same
// run: attached (a language server runs for the folder, its file index and
// content filter warm, and the call runs there) and standalone (--standalone:
// the process walks and reads the tree itself, as without a server). Each
// call is a whole process, start-up included; the attached call's CPU time
// adds the server's share to the process's own. It checks that the three
// report the same numbers of matching files and lines, and that each call
// ran where it was meant to (the Envelope's data.via).
//
//	go run ./bench/search/cli [-tree DIR] [-runs 7] [-bin whale-ls]
//
// Without -bin it builds whale-ls. The tree defaults to the Go toolchain's
// source tree.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
	"github.com/whale-ls/whale-ls/internal/syncbuf"
)

func main() {
	tree := flag.String("tree", benchserver.GoSrc(), "folder to search")
	runs := flag.Int("runs", 7, "timed runs per case and kind, after one warm-up; the median wall time and the mean CPU time are reported")
	bin := flag.String("bin", "", "whale-ls binary (default: build it)")
	flag.Parse()
	ok, err := run(*tree, *runs, *bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/search/cli:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

type benchCase struct {
	name string
	// goals: the largest whale/rg wall-time ratios accepted, standalone
	// and attached (0: none).
	standaloneGoal, attachedGoal float64
	icase                        bool
	pattern                      string
}

// result is one kind's figures for one case.
type result struct {
	wallMs, cpuMs  float64
	files, matches int
	via            string
}

func run(tree string, runs int, bin string) (bool, error) {
	if _, err := exec.LookPath("rg"); err != nil {
		return false, errors.New("ripgrep (rg) is not installed; install it (Debian: apt-get install ripgrep) and run again")
	}
	if tree == "" {
		return false, errors.New("no tree: give -tree (go env GOROOT did not answer)")
	}
	dir, _, bin, cleanup, err := benchserver.Setup("whale-bench-cli", bin)
	if err != nil {
		return false, err
	}
	defer cleanup()
	// The server and the calls share a runtime folder of their own, so that
	// the calls find this server (and no other).
	env := []string{"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	var logs syncbuf.Buffer
	t0 := time.Now()
	srv, err := benchserver.Start(bin, tree, nil, env, &logs)
	if err != nil {
		return false, err
	}
	defer srv.Close()
	// The index, then the content filter's first pass (it reads every file
	// once): attached figures are for a warm server.
	for !strings.Contains(logs.String(), "file contents indexed") && !strings.Contains(logs.String(), "file index off") {
		if time.Since(t0) > 10*time.Minute {
			return false, fmt.Errorf("the server's content filter was not ready after 10 minutes; its log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	ready := time.Since(t0)

	cases := []benchCase{
		{"literal: func main", 1.5, 0.5, false, "func main"},
		{"-i content-type", 1.5, 0.5, true, "content-type"},
		{`func \w+Handler\(`, 2.5, 0, false, `func \w+Handler\(`},
		{`\b[A-Z]{3,}_[A-Z]+\b`, 2.5, 0, false, `\b[A-Z]{3,}_[A-Z]+\b`},
	}
	allOK := true
	fmt.Printf("%-24s %8s %9s %9s %7s %7s  %7s %7s %7s  %s\n", "case", "rg ms", "stand ms", "att ms", "stand", "att", "rg cpu", "st cpu", "at cpu", "same matches; ran where meant")
	for _, c := range cases {
		rgArgs := []string{"rg", "--hidden", "--no-require-git", "--no-ignore-global", "-n", "--no-heading", "--with-filename", "--color", "never"}
		input := map[string]any{"pattern": c.pattern, "max_results": 1 << 30}
		if c.icase {
			rgArgs = append(rgArgs, "-i")
			input["case_insensitive"] = true
		}
		rgArgs = append(rgArgs, "-e", c.pattern)
		in, _ := json.Marshal(input)
		callArgs := func(extra ...string) []string {
			return append(append([]string{bin, "call", "--json"}, extra...), "grep", string(in))
		}
		kinds := []func() (result, error){
			func() (result, error) { return runRg(tree, rgArgs) },
			func() (result, error) { return runCall(tree, env, nil, callArgs("--standalone")) },
			func() (result, error) { return runCall(tree, env, srv, callArgs()) },
		}
		res, err := alternate(runs, kinds)
		if err != nil {
			return false, fmt.Errorf("%s: %w", c.name, err)
		}
		rg, st, at := res[0], res[1], res[2]
		var note string
		if st.files != rg.files || st.matches != rg.matches || at.files != rg.files || at.matches != rg.matches {
			note = fmt.Sprintf("NO: rg %d files %d lines, standalone %d/%d, attached %d/%d", rg.files, rg.matches, st.files, st.matches, at.files, at.matches)
			allOK = false
		} else {
			note = fmt.Sprintf("yes (%d files, %d lines)", rg.files, rg.matches)
		}
		if st.via != "standalone" || at.via != "attached" {
			note += fmt.Sprintf("; NO: ran %s with --standalone, %s without", st.via, at.via)
			allOK = false
		}
		sr, ar := st.wallMs/rg.wallMs, at.wallMs/rg.wallMs
		for _, g := range []struct {
			name        string
			ratio, goal float64
		}{{"standalone", sr, c.standaloneGoal}, {"attached", ar, c.attachedGoal}} {
			if g.goal > 0 && g.ratio > g.goal {
				note += fmt.Sprintf("; %s OVER GOAL %.1fx", g.name, g.goal)
				allOK = false
			}
		}
		fmt.Printf("%-24s %8.1f %9.1f %9.1f %6.2fx %6.2fx  %7.1f %7.1f %7.1f  %s\n", c.name, rg.wallMs, st.wallMs, at.wallMs, sr, ar, rg.cpuMs, st.cpuMs, at.cpuMs, note)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	rgVersion := strings.SplitN(string(mustOutput(tree, "rg", "--version")), "\n", 2)[0]
	nFiles := bytes.Count(mustOutput(tree, "rg", "--files", "--hidden", "--no-require-git", "--no-ignore-global"), []byte("\n"))
	fmt.Printf("goals (wall, whale/rg): standalone ≤ 1.5x for literals, ≤ 2.5x for regexps; attached ≤ 0.5x for literals\n")
	fmt.Printf("tree: %s (%d files); server ready (index and content filter) %.1f s after start; median wall and mean CPU of %d runs after a warm-up, kinds alternating; %d CPUs; load average %s; %s\n",
		tree, nFiles, ready.Seconds(), runs, runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:3], " "), rgVersion)
	fmt.Println("timed: whole processes (rg; whale-ls call --json grep), start-up included; attached CPU adds the server's (10 ms ticks)")
	return allOK, nil
}

// alternate runs each kind once to warm up, then runs rounds of all kinds in
// turn, so that they see the same load; it returns each kind's median wall
// time, mean CPU time and its last counts.
func alternate(runs int, kinds []func() (result, error)) ([]result, error) {
	out := make([]result, len(kinds))
	walls := make([][]float64, len(kinds))
	for _, k := range kinds {
		if _, err := k(); err != nil {
			return nil, err
		}
	}
	for range runs {
		for i, k := range kinds {
			r, err := k()
			if err != nil {
				return nil, err
			}
			walls[i] = append(walls[i], r.wallMs)
			cpu := out[i].cpuMs + r.cpuMs/float64(runs)
			out[i] = r
			out[i].cpuMs = cpu
		}
	}
	for i := range out {
		slices.Sort(walls[i])
		out[i].wallMs = walls[i][len(walls[i])/2]
	}
	return out, nil
}

// runRg runs rg, counting the files and lines it prints. Its output goes
// through a pipe (rg would notice /dev/null and stop early).
func runRg(dir string, args []string) (result, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	files := map[string]bool{}
	lines := 0
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Bytes()
		if i := bytes.IndexByte(l, ':'); i >= 0 {
			files[string(l[:i])] = true
		}
		lines++
	}
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
			return result{}, fmt.Errorf("%v: %w", args, err)
		}
	}
	r := result{wallMs: ms(time.Since(t)), files: len(files), matches: lines, via: "rg"}
	r.cpuMs = ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
	return r, nil
}

// runCall runs `whale-ls call --json grep …` and reads the counts and where
// it ran from its Envelope; srv, when set, is the server whose CPU time the
// call's includes.
func runCall(dir string, env []string, srv *benchserver.Server, args []string) (result, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var c0 time.Duration
	if srv != nil {
		c0, _ = srv.CPU()
	}
	t := time.Now()
	out, err := cmd.Output()
	wall := time.Since(t)
	if err != nil {
		return result{}, fmt.Errorf("%v: %w; stderr %s", args[1:], err, stderr.String())
	}
	var e struct {
		OK   bool `json:"ok"`
		Data struct {
			Files   int `json:"files"`
			Matches int `json:"matches"`
			Via     struct {
				Mode string `json:"mode"`
				Why  string `json:"why"`
			} `json:"via"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &e); err != nil || !e.OK {
		return result{}, fmt.Errorf("%v printed %.300q: %v", args[1:], out, err)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if srv != nil {
		c1, _ := srv.CPU()
		cpu += c1 - c0
	}
	return result{wallMs: ms(wall), cpuMs: ms(cpu), files: e.Data.Files, matches: e.Data.Matches, via: e.Data.Via.Mode}, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mustOutput(dir string, args ...string) []byte {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		fmt.Fprintf(os.Stderr, "bench/search/cli: %v: %v\n", args, err)
		os.Exit(2)
	}
	return out
}

//go:build linux

// Command execgate measures the exec boundary's cost and the sandbox's on
// top of it, in the same run: a shell loop that runs /bin/true N times
// (default 2000) with the gate off, behind the gate, and behind the gate
// with the sandbox (workspace-write); and `go build` of a small module
// behind the gate with and without the sandbox. Runs of the kinds compared
// alternate, and the best of each kind counts. It prints the times, their
// ratios and the machine's load. The binary is its own exec-gate helper.
//
//	go run ./bench/execgate [-n 2000] [-rounds 3] [-build-rounds 3]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/sandbox"
)

// task is the minimal execboundary.Task of the benchmark; spec, when set,
// confines it.
type task struct{ spec string }

func (task) ID() string            { return "bench" }
func (task) Note(line string)      { fmt.Fprintln(os.Stderr, line) }
func (task) Hold() func()          { return func() {} }
func (t task) Confinement() string { return t.spec }
func fail(v ...any)                { fmt.Fprintln(os.Stderr, v...); os.Exit(1) }
func check(err error) {
	if err != nil {
		fail(err)
	}
}

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--fd" || os.Args[1] == "--probe" || os.Args[1] == "--confine") {
		os.Exit(execboundary.RunHelper(os.Args[1:], sandbox.Apply))
	}
	n := flag.Int("n", 2000, "execs of /bin/true per run")
	rounds := flag.Int("rounds", 3, "runs of each kind of the exec loop; the best time counts")
	buildRounds := flag.Int("build-rounds", 3, "go builds of each kind; the best time counts")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the gated exec loops (the gate's side) to this file")
	flag.Parse()
	exe, err := os.Executable()
	check(err)
	state, err := os.MkdirTemp("", "execgate-bench")
	check(err)
	defer os.RemoveAll(state)
	ws := filepath.Join(state, "ws")
	check(os.Mkdir(ws, 0o755))
	gate := execboundary.NewGate(execboundary.Options{Helper: []string{exe}, Audit: execboundary.NewAuditLog(state)})
	if st := gate.State(); !st.Active {
		fail("the exec gate is not available here:", st.Reason)
	}
	policy, err := sandbox.Plan(sandbox.Options{Mode: string(sandbox.WorkspaceWrite), Workspace: []string{ws}})
	check(err)
	if err := sandbox.Check(policy); err != nil {
		fail("the sandbox is not available here:", err)
	}
	spec := policy.Spec()

	// taskCPU sums, per kind, the CPU time of the task's processes (the
	// shell and the children it waited for): less swayed by other load on
	// the machine than the wall-clock time.
	taskCPU := map[string]time.Duration{}
	// gateCPU sums this process's own CPU time over the gated runs of
	// the exec loop: the gate's work (the loop's ungated runs are left out).
	var gateCPU time.Duration
	var gateSwitches int64
	profiling := false
	run := func(mode string, t task, dir string, args ...string) time.Duration {
		check(gate.Configure(mode, nil, 0))
		loop := args[0] == "/bin/bash"
		if loop && mode != "off" {
			if *cpuProfile != "" && !profiling {
				f, err := os.Create(*cpuProfile)
				check(err)
				check(pprof.StartCPUProfile(f))
				profiling = true
			}
			cpu0, sw0 := selfCPU(), selfSwitches()
			defer func() { gateCPU += selfCPU() - cpu0; gateSwitches += selfSwitches() - sw0 }()
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if t.spec != "" {
			// The namespaces a confined task starts in, as the task
			// table makes them.
			sandbox.SetProcAttr(cmd.SysProcAttr, policy)
		}
		begin := time.Now()
		stop, err := gate.Start(cmd, t)
		check(err)
		if err := cmd.Wait(); err != nil {
			fail(strings.Join(args, " "), "failed:", err)
		}
		if stop != nil {
			stop()
		}
		kind := mode
		if t.spec != "" {
			kind += "+sandbox"
		}
		taskCPU[kind+" "+args[0]] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return time.Since(begin)
	}
	// best runs each kind rounds times, alternating kinds, and keeps the
	// best time of each.
	best := func(rounds int, kinds ...func() time.Duration) []time.Duration {
		out := make([]time.Duration, len(kinds))
		for range rounds {
			for i, k := range kinds {
				if d := k(); out[i] == 0 || d < out[i] {
					out[i] = d
				}
			}
		}
		return out
	}

	load0 := loadavg()
	loop := fmt.Sprintf("i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done", *n)
	sh := func(mode string, t task) func() time.Duration {
		return func() time.Duration { return run(mode, t, ws, "/bin/bash", "-c", loop) }
	}
	loops := best(*rounds, sh("off", task{}), sh("enforce", task{}), sh("enforce", task{spec: spec}))
	if profiling {
		pprof.StopCPUProfile()
	}
	off, gated, boxed := loops[0], loops[1], loops[2]
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(*n) }
	fmt.Printf("load average before: %s\n", load0)
	fmt.Printf("execs of /bin/true: %d (best of %d runs each, kinds alternating)\n", *n, *rounds)
	fmt.Printf("gate off:            %v (%.1f µs/exec)\n", off.Round(time.Millisecond), per(off))
	fmt.Printf("gate enforce:        %v (%.1f µs/exec)\n", gated.Round(time.Millisecond), per(gated))
	fmt.Printf("gate + sandbox:      %v (%.1f µs/exec)\n", boxed.Round(time.Millisecond), per(boxed))
	fmt.Printf("gate / off:          %.2f× (goal ≤ 1.5×)\n", float64(gated)/float64(off))
	fmt.Printf("gate+sandbox / gate: %.3f× (goal ≤ 1.05×)\n", float64(boxed)/float64(gated))
	fmt.Printf("gate CPU:            %.1f µs/exec (goal ≤ 100 µs; this process's CPU over the gated runs / their execs)\n", float64(gateCPU.Microseconds())/float64(*n**rounds*2))
	fmt.Printf("gate sleeps:         %.1f per exec (this process's threads' voluntary context switches over the gated runs)\n", float64(gateSwitches)/float64(*n**rounds*2))
	cpuGated, cpuBoxed := taskCPU["enforce /bin/bash"], taskCPU["enforce+sandbox /bin/bash"]
	fmt.Printf("task CPU, gate:      %.1f µs/exec\n", float64(cpuGated.Microseconds())/float64(*n**rounds))
	fmt.Printf("task CPU, +sandbox:  %.1f µs/exec (%.3f× of gate only)\n", float64(cpuBoxed.Microseconds())/float64(*n**rounds), float64(cpuBoxed)/float64(cpuGated))

	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Println("go build: skipped (go is not on PATH)")
		return
	}
	mod := filepath.Join(ws, "mod")
	check(writeModule(mod, 0))
	gen := 0
	build := func(t task) func() time.Duration {
		return func() time.Duration {
			gen++ // a changed constant: the module's packages compile again, the standard library comes from the cache
			check(writeModule(mod, gen))
			return run("enforce", t, mod, goBin, "build", "-o", filepath.Join(ws, "out"), ".")
		}
	}
	run("enforce", task{}, mod, goBin, "build", "-o", filepath.Join(ws, "out"), ".") // warm the cache
	builds := best(*buildRounds, build(task{}), build(task{spec: spec}))
	fmt.Printf("go build of a 3-package module: gate %v, gate + sandbox %v: %.3f× (best of %d each)\n",
		builds[0].Round(time.Millisecond), builds[1].Round(time.Millisecond), float64(builds[1])/float64(builds[0]), *buildRounds)
	bg, bb := taskCPU["enforce "+goBin], taskCPU["enforce+sandbox "+goBin]
	fmt.Printf("go build task CPU: gate %v, gate + sandbox %v: %.3f×\n", bg.Round(time.Millisecond), bb.Round(time.Millisecond), float64(bb)/float64(bg))
	fmt.Printf("load average after: %s\n", loadavg())
}

// writeModule writes a module of three packages whose constant is gen.
func writeModule(dir string, gen int) error {
	files := map[string]string{
		"go.mod":  "module example.com/benchmod\n\ngo 1.22\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/benchmod/a\"\n)\n\nfunc main() { fmt.Println(a.Sum(3)) }\n",
		"a/a.go":  fmt.Sprintf("package a\n\nimport (\n\t\"strings\"\n\n\t\"example.com/benchmod/b\"\n)\n\nconst Gen = %d\n\nfunc Sum(n int) int { return len(strings.Repeat(\"x\", n)) + b.Twice(n) + Gen }\n", gen),
		"b/b.go":  fmt.Sprintf("package b\n\nimport \"sort\"\n\nconst Gen = %d\n\nfunc Twice(n int) int { s := []int{n, 2 * n}; sort.Ints(s); return s[1] + Gen }\n", gen),
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// selfSwitches is how often this process's threads gave up the CPU to
// wait so far (voluntary context switches): each is a sleep and a wake-up.
func selfSwitches() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Nvcsw
}

// selfCPU is the user and system CPU time this process used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

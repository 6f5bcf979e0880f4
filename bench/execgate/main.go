//go:build linux

// Command execgate measures the exec boundary's cost: a shell loop that runs
// /bin/true N times (default 2000), once behind the gate and once with the
// gate off, in the same run, and prints both times and their ratio. The
// binary is its own exec-gate helper.
//
//	go run ./bench/execgate [-n 2000] [-rounds 3]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/whale-ls/whale-ls/execboundary"
)

// task is the minimal execboundary.Task of the benchmark.
type task struct{}

func (task) ID() string       { return "bench" }
func (task) Note(line string) { fmt.Fprintln(os.Stderr, line) }
func (task) Hold() func()     { return func() {} }

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--fd" || os.Args[1] == "--probe") {
		os.Exit(execboundary.RunHelper(os.Args[1:]))
	}
	n := flag.Int("n", 2000, "execs of /bin/true per run")
	rounds := flag.Int("rounds", 3, "runs of each kind; the best time counts")
	flag.Parse()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	state, err := os.MkdirTemp("", "execgate-bench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(state)
	gate := execboundary.NewGate(execboundary.Options{Helper: []string{exe}, Audit: execboundary.NewAuditLog(state)})
	if st := gate.State(); !st.Active {
		fmt.Fprintln(os.Stderr, "the exec gate is not available here:", st.Reason)
		os.Exit(1)
	}
	script := fmt.Sprintf("i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done", *n)
	run := func(mode string) time.Duration {
		if err := gate.Configure(mode, nil, 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cmd := exec.Command("/bin/bash", "-c", script)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		begin := time.Now()
		stop, err := gate.Start(cmd, task{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := cmd.Wait(); err != nil {
			fmt.Fprintln(os.Stderr, "loop failed:", err)
			os.Exit(1)
		}
		if stop != nil {
			stop()
		}
		return time.Since(begin)
	}
	best := func(mode string) time.Duration {
		var b time.Duration
		for range *rounds {
			if d := run(mode); b == 0 || d < b {
				b = d
			}
		}
		return b
	}
	off := best("off")
	cpu0 := selfCPU()
	on := best("enforce")
	gateCPU := selfCPU() - cpu0
	fmt.Printf("execs of /bin/true: %d (best of %d runs each)\n", *n, *rounds)
	fmt.Printf("gate off:      %v (%.1f µs/exec)\n", off.Round(time.Millisecond), float64(off.Microseconds())/float64(*n))
	fmt.Printf("gate enforce:  %v (%.1f µs/exec)\n", on.Round(time.Millisecond), float64(on.Microseconds())/float64(*n))
	fmt.Printf("ratio:         %.2f× (goal ≤ 1.5×)\n", float64(on)/float64(off))
	// The wall-clock ratio swings with the machine's load; the gate's own
	// CPU time per exec (this process answers every notification) does not.
	fmt.Printf("gate CPU:      %.1f µs/exec\n", float64(gateCPU.Microseconds())/float64(*n**rounds))
}

// selfCPU is the user and system CPU time this process used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

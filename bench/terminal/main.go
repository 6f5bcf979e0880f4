// Command terminal measures how fast a PTY task's output reaches an editor
// sink through the terminal package, against reading the same command's PTY
// directly in the same run, and the process's peak RSS meanwhile.
//
//	go run ./bench/terminal [-bytes 150000000] [-runs 2] [-sink count|jsonrpc]
//
// The command is `head -c BYTES /dev/urandom | base64`: about 1.35×BYTES of
// output (CRLF line ends added by the terminal). The "jsonrpc" sink frames
// every chunk as an LSP notification (Content-Length header + JSON) and
// writes it to the null device, which approximates the server's stdio cost.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/whale-ls/whale-ls/terminal"
)

func main() {
	n := flag.Int64("bytes", 150_000_000, "random bytes to base64-encode")
	runs := flag.Int("runs", 2, "measurements of each kind; the best is reported")
	sinkKind := flag.String("sink", "count", "sink: count (count bytes) or jsonrpc (frame as LSP notifications to the null device)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the task runs to this file")
	flag.Parse()
	command := fmt.Sprintf("head -c %d /dev/urandom | base64", *n)

	peak := &rssPeak{}
	stop := peak.sample(20 * time.Millisecond)
	defer stop()

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	var bestDirect, bestTask float64
	var directBytes, taskBytes, skipped int64
	var directCPU, taskCPU time.Duration
	for i := 0; i < *runs; i++ {
		c0 := cpuTime()
		b, d, err := direct(command)
		if err != nil {
			fmt.Fprintln(os.Stderr, "direct:", err)
			os.Exit(1)
		}
		directCPU += cpuTime() - c0
		directBytes = b
		bestDirect = max(bestDirect, mbps(b, d))

		c0 = cpuTime()
		b, s, d, err := throughTable(command, *sinkKind)
		if err != nil {
			fmt.Fprintln(os.Stderr, "task:", err)
			os.Exit(1)
		}
		taskCPU += cpuTime() - c0
		taskBytes, skipped = b, s
		bestTask = max(bestTask, mbps(b+s, d))
	}
	fmt.Printf("command: %s (best of %d runs each, alternating)\n", command, *runs)
	fmt.Printf("direct PTY read:        %8.1f MB/s (%d bytes; this process used %.2f s CPU per run)\n", bestDirect, directBytes, directCPU.Seconds()/float64(*runs))
	fmt.Printf("terminal task → %-7s %8.1f MB/s (%d bytes delivered, %d skipped; %.2f s CPU per run)\n", *sinkKind+":", bestTask, taskBytes, skipped, taskCPU.Seconds()/float64(*runs))
	fmt.Printf("ratio task/direct:      %8.2f\n", bestTask/bestDirect)
	fmt.Printf("peak RSS:               %8.1f MB\n", float64(peak.max.Load())/1e6)
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mbps(b int64, d time.Duration) float64 { return float64(b) / 1e6 / d.Seconds() }

// direct runs command on a PTY and reads the master until the end.
func direct(command string) (int64, time.Duration, error) {
	begin := time.Now()
	cmd := exec.Command("/bin/bash", "-c", command)
	f, err := pty.Start(cmd)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	var total int64
	for {
		k, err := f.Read(buf)
		total += int64(k)
		if err != nil {
			break // EIO: the end of output
		}
	}
	if err := cmd.Wait(); err != nil {
		return 0, 0, err
	}
	return total, time.Since(begin), nil
}

// throughTable runs command as a PTY task and waits for the sink's Exit.
func throughTable(command, kind string) (delivered, skipped int64, d time.Duration, err error) {
	var sink benchSink
	switch kind {
	case "count":
		sink = &countSink{}
	case "jsonrpc":
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return 0, 0, 0, err
		}
		defer null.Close()
		sink = &rpcSink{w: bufio.NewWriterSize(null, 64<<10)}
	default:
		return 0, 0, 0, fmt.Errorf("unknown sink %q", kind)
	}
	sink.init()
	table := terminal.NewTable(terminal.Options{Sink: sink})
	defer table.Close()
	dir, err := os.Getwd()
	if err != nil {
		return 0, 0, 0, err
	}
	begin := time.Now()
	if _, err := table.Start(terminal.StartOptions{Command: command, Dir: dir, Mode: terminal.ModePTY}); err != nil {
		return 0, 0, 0, err
	}
	select {
	case <-sink.exited():
	case <-time.After(10 * time.Minute):
		return 0, 0, 0, errors.New("no exit after 10 minutes")
	}
	d = time.Since(begin)
	b, s := sink.counts()
	return b, s, d, nil
}

type benchSink interface {
	terminal.Sink
	init()
	exited() <-chan struct{}
	counts() (delivered, skipped int64)
}

type countSink struct {
	bytes, skipped atomic.Int64
	done           chan struct{}
}

func (c *countSink) init()                   { c.done = make(chan struct{}) }
func (c *countSink) exited() <-chan struct{} { return c.done }
func (c *countSink) counts() (int64, int64)  { return c.bytes.Load(), c.skipped.Load() }
func (c *countSink) Open(terminal.TaskInfo)  {}
func (c *countSink) Output(_ string, _ int64, data string) {
	c.skipped.Add(skippedIn(data))
	c.bytes.Add(int64(len(data)))
}
func (c *countSink) Exit(string, int, string) { close(c.done) }

// rpcSink frames each chunk like the server's notification on stdio.
type rpcSink struct {
	countSink
	mu sync.Mutex
	w  *bufio.Writer
}

func (r *rpcSink) Output(id string, seq int64, data string) {
	r.countSink.Output(id, seq, data)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "whale/terminal/output",
		"params": map[string]any{"taskId": id, "seq": seq, "data": data}})
	r.mu.Lock()
	fmt.Fprintf(r.w, "Content-Length: %d\r\n\r\n", len(body))
	_, _ = r.w.Write(body)
	_ = r.w.Flush()
	r.mu.Unlock()
}

func skippedIn(data string) int64 {
	const m = " bytes of output skipped"
	var total int64
	for {
		i := strings.Index(data, m)
		if i < 0 {
			return total
		}
		j := strings.LastIndexByte(data[:i], '[')
		if n, err := strconv.ParseInt(strings.TrimPrefix(data[j+1:i], "whale: "), 10, 64); err == nil {
			total += n
		}
		data = data[i+len(m):]
	}
}

type rssPeak struct{ max atomic.Int64 }

func (p *rssPeak) sample(every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if v := rss(); v > p.max.Load() {
				p.max.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(every):
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// rss reads the resident set size from /proc/self/status.
func rss() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1000
		}
	}
	return 0
}

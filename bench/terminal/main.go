//go:build unix

// Command terminal measures how fast a PTY task's output reaches an editor:
// through the terminal package to an in-process Sink, and through a real
// whale-ls server to a client reading whale/terminal/output notifications
// over stdio, each against reading the same command's PTY directly in the
// same run (runs alternate; the best of each kind is reported). Rates count
// the bytes delivered; bytes skipped because the reader fell behind are
// reported apart. It also reports peak RSS of this process and the server.
//
//	go run ./bench/terminal [-bytes 150000000] [-runs 2] [-sink count|jsonrpc] [-stdio=false] [-server PATH]
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

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
	"github.com/whale-ls/whale-ls/terminal"
)

func main() {
	n := flag.Int64("bytes", 150_000_000, "random bytes to base64-encode")
	runs := flag.Int("runs", 2, "measurements of each kind, alternating; the best is reported")
	sinkKind := flag.String("sink", "count", "in-process sink: count (count bytes) or jsonrpc (frame as LSP notifications to the null device)")
	stdio := flag.Bool("stdio", true, "also measure through a whale-ls server over stdio")
	server := flag.String("server", "", "whale-ls binary for -stdio (default: build one)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of this process to this file")
	flag.Parse()
	command := fmt.Sprintf("head -c %d /dev/urandom | base64", *n)
	fail := func(what string, err error) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		os.Exit(1)
	}
	if *stdio && *server == "" {
		dir, err := os.MkdirTemp("", "whale-bench-bin-")
		if err != nil {
			fail("temp dir", err)
		}
		defer os.RemoveAll(dir)
		if *server, err = benchserver.Binary("", dir); err != nil {
			fail("build", err)
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail("cpuprofile", err)
		}
		defer f.Close()
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	peak := &rssPeak{}
	stop := peak.sample(20 * time.Millisecond)
	var bestDirect, bestTask, bestStdio float64
	var directBytes, taskBytes, skipped, stdioBytes, stdioSkipped, serverRSS int64
	var directCPU, taskCPU time.Duration
	for i := 0; i < *runs; i++ {
		c0 := cpuTime()
		b, d, err := direct(command)
		if err != nil {
			fail("direct", err)
		}
		directCPU += cpuTime() - c0
		directBytes = b
		bestDirect = max(bestDirect, mbps(b, d))

		c0 = cpuTime()
		b, s, d, err := throughTable(command, *sinkKind)
		if err != nil {
			fail("task", err)
		}
		taskCPU += cpuTime() - c0
		taskBytes, skipped = b, s
		bestTask = max(bestTask, mbps(b, d))

		if *stdio {
			b, s, d, rss, err := overStdio(*server, command)
			if err != nil {
				fail("stdio", err)
			}
			stdioBytes, stdioSkipped = b, s
			serverRSS = max(serverRSS, rss)
			bestStdio = max(bestStdio, mbps(b, d))
		}
	}
	stop()
	fmt.Printf("command: %s (best of %d runs each, alternating)\n", command, *runs)
	fmt.Printf("direct PTY read:           %8.1f MB/s (%d bytes; %.2f s CPU in this process per run)\n", bestDirect, directBytes, directCPU.Seconds()/float64(*runs))
	fmt.Printf("terminal package → %-7s %8.1f MB/s (%d bytes delivered, %d skipped; %.2f s CPU per run) ratio %.2f\n",
		*sinkKind+":", bestTask, taskBytes, skipped, taskCPU.Seconds()/float64(*runs), bestTask/bestDirect)
	fmt.Printf("  peak RSS of this process: %.1f MB\n", float64(peak.max.Load())/1e6)
	if *stdio {
		fmt.Printf("whale-ls over stdio:       %8.1f MB/s (%d bytes delivered, %d skipped) ratio %.2f\n", bestStdio, stdioBytes, stdioSkipped, bestStdio/bestDirect)
		fmt.Printf("  peak RSS of the server: %.1f MB\n", float64(serverRSS)/1e6)
	}
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
			if v := rssOf(os.Getpid()); v > p.max.Load() {
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

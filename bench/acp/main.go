// Command acp measures what `whale-ls acp` costs an ACP conversation: the
// throughput of session/update notifications from the agent to the editor
// through the proxy against the same agent run directly, and the latency
// of one fs/write_text_file served by whale (commit path, journal, diff to
// the editor) against the same write served by a client that just writes
// the file. The agent is this program itself (re-run with an environment
// variable), so both runs play the same agent.
//
//	go run ./bench/acp [-bin path/to/whale-ls] [-updates 200000] [-writes 500] [-runs 3]
//
// Without -bin it builds whale-ls first. It prints the best of -runs runs
// of each figure and the load average before and after, since the figures
// swing with the machine's load.
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
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
)

// agentVar makes this program the bench's ACP agent.
const agentVar = "WHALE_BENCH_ACP_AGENT"

func main() {
	if os.Getenv(agentVar) == "1" {
		if err := agent(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench/acp agent:", err)
			os.Exit(1)
		}
		return
	}
	bin := flag.String("bin", "", "whale-ls binary (default: build it)")
	updates := flag.Int("updates", 200000, "session/update notifications per run")
	writes := flag.Int("writes", 500, "fs/write_text_file requests per run")
	runs := flag.Int("runs", 3, "runs of each measurement (the best is printed)")
	flag.Parse()
	if err := run(*bin, *updates, *writes, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench/acp:", err)
		os.Exit(1)
	}
}

// line is one JSON-RPC message as the bench reads it.
type line struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// agent is the bench's ACP agent: session/prompt "stream N" sends N
// agent_message_chunk updates; "write N PATH" writes PATH N times with
// fs/write_text_file, one after another, and returns each write's latency
// in microseconds in _meta.
func agent(in io.Reader, out io.Writer) error {
	w := bufio.NewWriterSize(out, 64<<10)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	send := func(v any) {
		b, _ := json.Marshal(v)
		w.Write(append(b, '\n'))
	}
	next := func() (line, error) {
		if !sc.Scan() {
			return line{}, io.EOF
		}
		var m line
		return m, json.Unmarshal(sc.Bytes(), &m)
	}
	seq := 0
	for {
		m, err := next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "bench-agent", "version": "1"}}})
		case "session/new":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"sessionId": "b1"}})
		case "session/prompt":
			var p struct {
				Prompt []struct {
					Text string `json:"text"`
				} `json:"prompt"`
			}
			json.Unmarshal(m.Params, &p)
			f := strings.Fields(p.Prompt[0].Text)
			n, _ := strconv.Atoi(f[1])
			var lat []int64
			switch f[0] {
			case "stream":
				for i := range n {
					send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "b1", "update": map[string]any{
						"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": fmt.Sprintf("chunk %d of the agent's answer, about a line long", i)}}}})
				}
			case "write":
				for i := range n {
					seq++
					start := time.Now()
					send(map[string]any{"jsonrpc": "2.0", "id": seq, "method": "fs/write_text_file", "params": map[string]any{"sessionId": "b1", "path": f[2], "content": fmt.Sprintf("line one\nversion %d\nline three\n", i)}})
					w.Flush()
					for {
						r, err := next()
						if err != nil {
							return err
						}
						if r.Method == "" && string(r.ID) == strconv.Itoa(seq) {
							if r.Error != nil {
								return fmt.Errorf("fs/write_text_file: %s", r.Error)
							}
							break
						}
					}
					lat = append(lat, time.Since(start).Microseconds())
				}
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"stopReason": "end_turn", "_meta": map[string]any{"latencies": lat}}})
		}
		w.Flush()
	}
}

// session is the bench's editor side of one conversation.
type session struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	w   *bufio.Writer
	seq int
}

func start(argv []string, dir string) (*session, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), agentVar+"=1", "XDG_STATE_HOME="+filepath.Join(dir, "..", "state"), "XDG_RUNTIME_DIR="+filepath.Join(dir, "..", "run"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	s := &session{cmd: cmd, in: in, out: sc, w: bufio.NewWriter(in)}
	if _, err := s.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}}, nil); err != nil {
		return nil, err
	}
	if _, err := s.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}, nil); err != nil {
		return nil, err
	}
	return s, nil
}

// call sends a request and reads until its response, counting the
// session/update notifications and answering fs/write_text_file by
// writing the file (what a plain client does).
func (s *session) call(method string, params any, updates *int) (json.RawMessage, error) {
	s.seq++
	id := strconv.Itoa(s.seq)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.seq, "method": method, "params": params})
	s.w.Write(append(b, '\n'))
	s.w.Flush()
	for s.out.Scan() {
		var m line
		if err := json.Unmarshal(s.out.Bytes(), &m); err != nil {
			return nil, err
		}
		switch {
		case m.Method == "session/update":
			if updates != nil {
				*updates++
			}
		case m.Method == "fs/write_text_file":
			var p struct {
				Path    string `json:"path"`
				Content string `json:"content"`
			}
			json.Unmarshal(m.Params, &p)
			if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
				return nil, err
			}
			r, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
			s.w.Write(append(r, '\n'))
			s.w.Flush()
		case m.Method == "" && string(m.ID) == id:
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, m.Error)
			}
			return m.Result, nil
		}
	}
	return nil, fmt.Errorf("%s: the connection ended", method)
}

func (s *session) close() {
	s.in.Close()
	s.cmd.Wait()
}

// prompt runs one turn of text.
func (s *session) prompt(text string, updates *int) (json.RawMessage, error) {
	return s.call("session/prompt", map[string]any{"sessionId": "b1", "prompt": []any{map[string]any{"type": "text", "text": text}}}, updates)
}

// measure is one run: updates/s of a stream turn, and the write latencies.
func measure(argv []string, ws string, updates, writes int) (rate float64, lat []time.Duration, err error) {
	s, err := start(argv, ws)
	if err != nil {
		return 0, nil, err
	}
	defer s.close()
	got := 0
	t0 := time.Now()
	if _, err := s.prompt(fmt.Sprintf("stream %d", updates), &got); err != nil {
		return 0, nil, err
	}
	rate = float64(got) / time.Since(t0).Seconds()
	if got != updates {
		return 0, nil, fmt.Errorf("got %d updates, want %d", got, updates)
	}
	path := filepath.Join(ws, "written.txt")
	os.WriteFile(path, []byte("line one\nstart\nline three\n"), 0o644)
	res, err := s.prompt(fmt.Sprintf("write %d %s", writes, path), nil)
	if err != nil {
		return 0, nil, err
	}
	var r struct {
		Meta struct {
			Latencies []int64 `json:"latencies"`
		} `json:"_meta"`
	}
	json.Unmarshal(res, &r)
	for _, us := range r.Meta.Latencies {
		lat = append(lat, time.Duration(us)*time.Microsecond)
	}
	return rate, lat, nil
}

func run(bin string, updates, writes, runs int) error {
	dir, ws, bin, cleanup, err := benchserver.Setup("whale-bench-acp", bin)
	if err != nil {
		return err
	}
	defer cleanup()
	for _, d := range []string{"state", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	load0 := loadavg()
	direct := []string{self}
	proxied := []string{bin, "acp", "--no-tools", "--", self}
	var best [2]struct {
		rate float64
		p50  time.Duration
		p99  time.Duration
	}
	for range runs {
		for i, argv := range [][]string{direct, proxied} {
			rate, lat, err := measure(argv, ws, updates, writes)
			if err != nil {
				return err
			}
			slices.Sort(lat)
			p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
			if rate > best[i].rate {
				best[i].rate = rate
			}
			if best[i].p50 == 0 || p50 < best[i].p50 {
				best[i].p50, best[i].p99 = p50, p99
			}
		}
	}
	fmt.Printf("session/update, %d per turn, best of %d runs:\n", updates, runs)
	fmt.Printf("  direct               %9.0f updates/s\n", best[0].rate)
	fmt.Printf("  through whale-ls acp %9.0f updates/s  (%.2fx direct)\n", best[1].rate, best[1].rate/best[0].rate)
	fmt.Printf("fs/write_text_file, %d writes of a 3-line file one after another (the run with the best p50):\n", writes)
	fmt.Printf("  client writes the file      p50 %8v  p99 %8v\n", best[0].p50, best[0].p99)
	fmt.Printf("  whale's commit path+journal p50 %8v  p99 %8v  (+%v at p50)\n", best[1].p50, best[1].p99, best[1].p50-best[0].p50)
	fmt.Printf("load average before %s, after %s; %d CPUs\n", load0, loadavg(), runtime.NumCPU())
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

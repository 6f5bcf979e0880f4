//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// rpcClient is the smallest LSP client the measurement needs: framed JSON
// over the server's stdin and stdout.
type rpcClient struct {
	w  io.Writer
	r  *textproto.Reader
	br *bufio.Reader
	id int
}

func (c *rpcClient) send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

func (c *rpcClient) request(method string, params any) (int, error) {
	c.id++
	return c.id, c.send(map[string]any{"id": c.id, "method": method, "params": params})
}

type message struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (c *rpcClient) read() (message, error) {
	hdr, err := c.r.ReadMIMEHeader()
	if err != nil {
		return message{}, err
	}
	n, err := strconv.Atoi(hdr.Get("Content-Length"))
	if err != nil {
		return message{}, fmt.Errorf("bad Content-Length %q", hdr.Get("Content-Length"))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.br, body); err != nil {
		return message{}, err
	}
	var m message
	return m, json.Unmarshal(body, &m)
}

// overStdio runs command as a PTY task in a real whale-ls server and reads
// its whale/terminal/output notifications until whale/terminal/exit. It
// returns the bytes delivered, the bytes the server skipped, the time, and
// the server's peak RSS.
func overStdio(server, command string) (delivered, skipped int64, d time.Duration, peakRSS int64, err error) {
	ws, err := os.MkdirTemp("", "whale-bench-")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer os.RemoveAll(ws)
	cmd := exec.Command(server, "serve")
	cmd.Dir = ws
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	stopRSS := make(chan struct{})
	rssDone := make(chan int64)
	go func() {
		var peak int64
		for {
			if v := rssOf(cmd.Process.Pid); v > peak {
				peak = v
			}
			select {
			case <-stopRSS:
				rssDone <- peak
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	br := bufio.NewReaderSize(out, 256<<10)
	c := &rpcClient{w: in, br: br, r: textproto.NewReader(br)}
	initID, _ := c.request("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + ws,
		"capabilities": map[string]any{"experimental": map[string]any{"whale": map[string]any{"terminals": true}}},
	})
	if err := c.await(initID); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("initialize: %w", err)
	}
	_ = c.send(map[string]any{"method": "initialized", "params": map[string]any{}})
	begin := time.Now()
	if _, err := c.request("workspace/executeCommand", map[string]any{
		"command":   "whale.shell_run",
		"arguments": []any{map[string]any{"command": command, "mode": "pty", "background": true}},
	}); err != nil {
		return 0, 0, 0, 0, err
	}
	var lastSeq int64
	for {
		m, err := c.read()
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("reading notifications: %w", err)
		}
		switch m.Method {
		case "whale/terminal/output":
			var p struct {
				Seq  int64  `json:"seq"`
				Data string `json:"data"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil {
				return 0, 0, 0, 0, err
			}
			if p.Seq <= lastSeq {
				return 0, 0, 0, 0, fmt.Errorf("seq %d after %d", p.Seq, lastSeq)
			}
			lastSeq = p.Seq
			delivered += int64(len(p.Data))
			skipped += skippedIn(p.Data)
		case "whale/terminal/exit":
			d = time.Since(begin)
			close(stopRSS)
			peakRSS = <-rssDone
			shutID, _ := c.request("shutdown", nil)
			_ = c.await(shutID)
			_ = c.send(map[string]any{"method": "exit"})
			return delivered, skipped, d, peakRSS, nil
		}
	}
}

// await reads messages until the response to id.
func (c *rpcClient) await(id int) error {
	for {
		m, err := c.read()
		if err != nil {
			return err
		}
		if m.ID != nil && *m.ID == id && m.Method == "" {
			if len(m.Error) > 0 && string(m.Error) != "null" {
				return errors.New(string(m.Error))
			}
			return nil
		}
	}
}

// rssOf reads a process's resident set size from /proc.
func rssOf(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1000
		}
	}
	return 0
}

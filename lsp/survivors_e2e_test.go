//go:build linux

package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Processes that outlive their task's shell, through the real binary: each
// command leaves one `sleep MARKER` running, each in its own way. They are
// found in /proc by the marker, not by asking the server.
var daemonCommands = []struct{ name, command string }{
	{"setsid", "setsid sleep %s >/dev/null 2>&1 < /dev/null & echo started"},
	{"nohup", "nohup sleep %s >/dev/null 2>&1 & echo started"},
	{"double fork", "(sleep %s &) & echo started"},
}

var survivorMarkers atomic.Int64

// survivorMarker is a sleep argument no other process uses; what a failed
// test leaves behind with it is killed at cleanup.
func survivorMarker(t *testing.T) string {
	m := fmt.Sprintf("1000.%d%03d", os.Getpid(), survivorMarkers.Add(1))
	t.Cleanup(func() {
		for _, pid := range survivorSleeps(m) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
	return m
}

// survivorSleeps scans /proc for live `sleep MARKER` processes.
func survivorSleeps(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.HasSuffix(cmdline, []byte("sleep\x00"+marker+"\x00")) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); err == nil && i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}

type shellSurvivor struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

// runDaemon runs command and waits until a result of its task names the
// daemon it left; it returns the task id and the daemon's pid.
func runDaemon(t *testing.T, s *session, command, marker string) (string, int) {
	t.Helper()
	env := s.exec(ctxT(t), "shell_run", map[string]any{"command": command, "yield_time_ms": 30000})
	deadline := time.Now().Add(time.Minute)
	for {
		var data struct {
			TaskID    string          `json:"task_id"`
			Status    string          `json:"status"`
			Survivors []shellSurvivor `json:"survivors"`
		}
		b, _ := json.Marshal(env.Data)
		json.Unmarshal(b, &data)
		if !env.OK || data.TaskID == "" {
			t.Fatalf("%q: %s %q", command, env.Code, env.Text)
		}
		if data.Status == "exited" && len(data.Survivors) == 1 && data.Survivors[0].Command == "sleep "+marker {
			pid := data.Survivors[0].PID
			wantText(t, env, fmt.Sprintf("[%s finished: exit code 0 · ", data.TaskID), fmt.Sprintf("; 1 process it started still runs: %d sleep %s]", pid, marker))
			return data.TaskID, pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q: no result names the daemon; last: %q %s", command, env.Text, b)
		}
		env = s.exec(ctxT(t), "shell_wait", map[string]any{"task_id": data.TaskID, "timeout_ms": 200})
	}
}

// TestDaemonsAreListedAndCanceled: a daemon left by a finished task is in
// its shell results and its whale/terminal/list entry, and shell_cancel
// ends it.
func TestDaemonsAreListedAndCanceled(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	for _, dc := range daemonCommands {
		t.Run(dc.name, func(t *testing.T) {
			m := survivorMarker(t)
			id, pid := runDaemon(t, s, fmt.Sprintf(dc.command, m), m)
			var list struct {
				Tasks []struct {
					ID        string          `json:"taskId"`
					State     string          `json:"state"`
					Survivors []shellSurvivor `json:"survivors"`
				} `json:"tasks"`
			}
			if _, err := s.conn.Call(ctxT(t), "whale/terminal/list", nil, &list); err != nil {
				t.Fatalf("whale/terminal/list: %v", err)
			}
			listed := false
			for _, task := range list.Tasks {
				listed = listed || (task.ID == id && task.State == "exited" && len(task.Survivors) == 1 && task.Survivors[0] == shellSurvivor{pid, "sleep " + m})
			}
			if !listed {
				t.Errorf("whale/terminal/list = %+v, want %s exited with survivor %d", list, id, pid)
			}
			env := s.exec(ctxT(t), "shell_cancel", map[string]any{"task_id": id})
			wantText(t, env, fmt.Sprintf("%s had already finished; ended the process it had left running (%d sleep %s)", id, pid, m))
			waitFor(t, "the daemon to end", func() bool { return len(survivorSleeps(m)) == 0 })
		})
	}
}

// TestKilledServerLeavesNoDaemon: SIGKILL the server while finished tasks
// have daemons running; /proc must show every daemon gone soon after.
func TestKilledServerLeavesNoDaemon(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	var ms []string
	for _, dc := range daemonCommands {
		m := survivorMarker(t)
		runDaemon(t, s, fmt.Sprintf(dc.command, m), m)
		ms = append(ms, m)
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every daemon to end with the server", func() bool {
		for _, m := range ms {
			if len(survivorSleeps(m)) > 0 {
				return false
			}
		}
		return true
	})
}

// TestShellRunOverTheArgumentLimit: a command the kernel cannot pass to the
// shell is invalid input with the way out, not a denial.
func TestShellRunOverTheArgumentLimit(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	command := "echo " + strings.Repeat("x", 200_000)
	env := s.exec(ctxT(t), "shell_run", map[string]any{"command": command})
	want := fmt.Sprintf("the command is %d bytes, more than a command may be (%d bytes", len(command), 32*os.Getpagesize()-1)
	if env.OK || env.Code != "invalid_input" || !strings.HasPrefix(env.Text, want) || !strings.Contains(env.Text, "write it to a script file with `write`") {
		t.Errorf("shell_run of %d bytes = %s %q, want invalid_input starting %q", len(command), env.Code, env.Text, want)
	}
}

package terminal

// This file holds a task's I/O loops: reading output, reaping the shell,
// deciding the exit.

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func (t *Task) readLoop() {
	defer close(t.readDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.out.Read(buf)
		if n > 0 {
			t.received.Add(int64(n))
			t.ingest(buf[:n])
		}
		if err != nil {
			// io.EOF on a pipe, EIO on a PTY master once no process holds
			// the terminal: either way the output is complete.
			return
		}
	}
}

func (t *Task) ingest(p []byte) {
	t.mu.Lock()
	t.filter.write(p)
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	if t.stream != nil {
		t.stream.write(p)
	}
}

// drainQuiet is how long the output must stay quiet after the process exited
// before the exit is final while something still holds the output open;
// drainLimit bounds that wait when something keeps writing.
const (
	drainQuiet = 250 * time.Millisecond
	drainLimit = 3 * time.Second
)

// reapLoop waits for the task's first process (the shell, or the
// supervisor, which outlives the shell while processes it adopted run).
func (t *Task) reapLoop() {
	t.waitErr = t.cmd.Wait()
	close(t.procDone)
	if t.gateStop != nil {
		t.gateStop()
	}
}

// shellExit waits for the supervisor's report of the shell's exit; ok is
// false when there is none (no supervisor, or it died before reporting).
func (t *Task) shellExit() (code int, sig string, ok bool) {
	if t.shellStatus == nil {
		return 0, "", false
	}
	defer t.shellStatus.Close()
	var line []byte
	buf := make([]byte, 32)
	for !bytes.Contains(line, []byte{'\n'}) && len(line) < 64 {
		n, err := t.shellStatus.Read(buf)
		line = append(line, buf[:n]...)
		if err != nil {
			break
		}
	}
	text, complete := strings.CutSuffix(string(line), "\n")
	n, err := strconv.Atoi(text)
	if !complete || err != nil {
		return 0, "", false
	}
	code, sig = reportedStatus(n)
	return code, sig, true
}

func (t *Task) waitLoop() {
	go t.reapLoop()
	code, sig, reported := t.shellExit()
	if !reported {
		<-t.procDone
		code, sig = exitStatus(t.cmd.ProcessState, t.waitErr)
	}
	// Completion is the shell's exit; read what the process wrote before
	// it. A background grandchild may keep the output open: stop waiting
	// once it has been quiet for a moment.
	last := t.received.Load()
	limit := time.After(drainLimit)
	for drained := false; !drained; {
		select {
		case <-t.readDone:
			drained = true
		case <-limit:
			drained = true
		case <-time.After(drainQuiet):
			now := t.received.Load()
			drained = now == last
			last = now
		}
	}
	t.mu.Lock()
	t.done = true
	t.exitCode, t.signal = code, sig
	t.endedAt = time.Now()
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	close(t.exited)
	if t.stream != nil {
		t.stream.finish(code, sig)
	}
	select {
	case <-t.readDone:
		t.closeFiles()
	default:
	}
}

func exitStatus(ps *os.ProcessState, err error) (int, string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return fmt.Sprintf("signal %d", int(s))
}

//go:build linux

package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

func TestMain(m *testing.M) {
	// The test binary doubles as the task supervisor and as a server that
	// the tests kill.
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		os.Exit(Supervise(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == serverArg {
		runTestServer(os.Args[2])
		return
	}
	if err := BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "BecomeSubreaper:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// sleepers lists live `sleep MARKER` processes.
func sleepers(t *testing.T, marker string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		if err != nil || len(args) != 2 || filepath.Base(string(args[0])) != "sleep" || string(args[1]) != marker {
			continue
		}
		if p, ok := readProcStat(pid); ok && p.state != 'Z' {
			out = append(out, fmt.Sprintf("%d %q", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// marker makes a sleep duration no other process uses.
func marker() string {
	return fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%100000)
}

func TestCancelKillsBackgroundJobs(t *testing.T) {
	tb := newTable(t, Options{})
	for _, mode := range []Mode{ModePipe, ModePTY} {
		m := marker()
		task := start(t, tb, StartOptions{Command: fmt.Sprintf("sh -c 'sleep %s & sleep %s'", m, m), Mode: mode})
		eventually(t, "both sleeps to start", func() bool { return len(sleepers(t, m)) == 2 })
		rep := task.Cancel()
		if rep.AlreadyExited || rep.Unkillable != 0 || rep.Took == "" {
			t.Errorf("mode %s: Cancel() = %+v, want it stopped with no survivors", mode, rep)
		}
		if left := sleepers(t, m); len(left) > 0 {
			t.Errorf("mode %s: survivors after cancel: %v", mode, left)
		}
		waitDone(t, task)
		if st := task.Status(); !st.Canceled {
			t.Errorf("mode %s: Status() = %+v, want canceled", mode, st)
		}
		if rep := task.Cancel(); !rep.AlreadyExited {
			t.Errorf("mode %s: second Cancel() = %+v, want AlreadyExited", mode, rep)
		}
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	tb := NewTable(Options{})
	m := marker()
	var tasks []*Task
	for _, o := range []StartOptions{
		{Command: "sleep " + m, Mode: ModePipe},
		{Command: "sleep " + m + " & sleep " + m, Mode: ModePTY},
		{Command: "trap '' TERM INT HUP; sleep " + m + " & trap '' TERM; sleep " + m, Mode: ModePipe},
		{Command: "setsid sleep " + m + " & sleep " + m, Mode: ModePipe},
		{Command: "(sleep " + m + " &) ; echo detached", Mode: ModePipe},
	} {
		o.Dir = t.TempDir()
		task, err := tb.Start(o)
		if err != nil {
			t.Fatalf("Start(%q): %v", o.Command, err)
		}
		tasks = append(tasks, task)
	}
	eventually(t, "all sleeps to start", func() bool { return len(sleepers(t, m)) == 8 })
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	if left := sleepers(t, m); len(left) > 0 {
		t.Errorf("processes left after Close: %v", left)
	}
	for _, task := range tasks {
		if task.Running() {
			t.Errorf("%s still running after Close", task.ID())
		}
	}
	if _, err := tb.Start(StartOptions{Command: "true"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
}

func TestPipeTaskCompletesDespiteBackgroundChild(t *testing.T) {
	tb := newTable(t, Options{ReleaseAfter: 50 * time.Millisecond})
	m := marker()
	task := start(t, tb, StartOptions{Command: "sleep " + m + " & echo parent done", Mode: ModePipe})
	waitDone(t, task)
	readUntil(t, task, "parent done")
	// What the task left behind keeps it from being released…
	time.Sleep(500 * time.Millisecond)
	tb.sweep()
	if _, err := tb.Get(task.ID()); err != nil {
		t.Fatalf("Get(%s) with a survivor = %v, want the task kept", task.ID(), err)
	}
	if len(sleepers(t, m)) != 1 {
		t.Fatalf("the background sleep is gone before the task was canceled")
	}
	// … until it is ended; then the task is released.
	if rep := task.Cancel(); rep.AlreadyExited || len(rep.Ended) != 1 {
		t.Errorf("Cancel() = %+v, want the one survivor ended", rep)
	}
	eventually(t, "the background sleep to be killed", func() bool { return len(sleepers(t, m)) == 0 })
	eventually(t, "release of the task", func() bool {
		_, err := tb.Get(task.ID())
		return errors.Is(err, ErrNotFound)
	})
}

func TestNoZombiesLeft(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: "(sleep 0.2 &) ; (true &) ; sleep 0.5", Mode: ModePipe})
	waitDone(t, task)
	self := os.Getpid()
	eventually(t, "orphans of the task to be reaped", func() bool {
		for _, p := range allProcs() {
			if p.ppid == self && p.state == 'Z' && p.session == task.pid {
				return false
			}
		}
		return true
	})
}

func TestTooManyTasks(t *testing.T) {
	tb := newTable(t, Options{MaxLive: 2})
	start(t, tb, StartOptions{Command: "sleep 1000"})
	start(t, tb, StartOptions{Command: "sleep 1000"})
	_, err := tb.Start(StartOptions{Command: "true", Dir: t.TempDir()})
	if !errors.Is(err, ErrTooManyTasks) || !strings.Contains(err.Error(), "t1, t2") {
		t.Errorf("third Start: %v, want ErrTooManyTasks naming t1, t2", err)
	}
}

func TestFiftyMegabytesStayBounded(t *testing.T) {
	sink := newRecordingSink()
	// An editor that falls behind: it takes nothing until the task exited.
	hold := make(chan struct{})
	tb := newTable(t, Options{Sink: &countingSink{inner: sink, hold: hold}})
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	task := start(t, tb, StartOptions{Command: "head -c 50000000 /dev/zero | tr '\\0' 'x' | fold -w 99; echo THE-END", Mode: ModePipe})
	waitDone(t, task)
	close(hold)
	eventually(t, "the terminal exit", func() bool { return sink.exited(task.ID()) })
	close(stop)
	<-sampled
	const bound = 48 << 20
	if p := peak.Load(); p > bound {
		t.Errorf("heap in use peaked at %d MB, want under %d MB", p>>20, bound>>20)
	}
	out := task.ReadOutput()
	if !strings.Contains(out, "bytes of earlier output were dropped") || !strings.HasSuffix(strings.TrimSpace(out), "THE-END") {
		t.Errorf("model output should say what was dropped and end with the last line; got %d bytes: %.200q … %q", len(out), out, out[max(0, len(out)-100):])
	}
	if len(out) > 64<<10 {
		t.Errorf("model output is %d bytes, want the head and tail only", len(out))
	}
	editor := sink.text(task.ID())
	if !strings.Contains(editor, "bytes of output skipped") || !strings.Contains(editor, "THE-END") {
		t.Errorf("editor stream (%d bytes) should carry a skip marker and the end", len(editor))
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.errs) > 0 {
		t.Errorf("sink protocol errors: %v", sink.errs)
	}
}

// countingSink keeps only the last part of the data, so that the test itself
// does not hold 50 MB.
type countingSink struct {
	inner *recordingSink
	hold  chan struct{}
}

func (c *countingSink) Open(info TaskInfo) { c.inner.Open(info) }
func (c *countingSink) Output(id string, seq int64, data string) {
	<-c.hold
	c.inner.Output(id, seq, data)
	c.inner.mu.Lock()
	if b := c.inner.data[id]; b.Len() > 1<<20 {
		s := b.String()
		b.Reset()
		// keep skip markers visible
		if i := strings.LastIndex(s, "bytes of output skipped"); i >= 0 {
			b.WriteString("[…] bytes of output skipped […]")
		}
		b.WriteString(s[len(s)-4096:])
	}
	c.inner.mu.Unlock()
}
func (c *countingSink) Exit(id string, code int, sig string) { c.inner.Exit(id, code, sig) }

func TestUTF8SplitAcrossReadsArrivesWhole(t *testing.T) {
	sink := newRecordingSink()
	tb := newTable(t, Options{Sink: sink})
	// "é" is C3 A9 and "€" is E2 82 AC; each is written in two parts with a
	// pause between, so they arrive in separate reads.
	task := start(t, tb, StartOptions{Command: `printf 'caf\xc3'; sleep 0.3; printf '\xa9 costs 5\xe2\x82'; sleep 0.3; printf '\xac\n'`, Mode: ModePipe})
	waitDone(t, task)
	eventually(t, "the exit notification", func() bool { return sink.exited(task.ID()) })
	if got, want := sink.text(task.ID()), "café costs 5€\n"; got != want {
		t.Errorf("editor text = %q, want %q", got, want)
	}
	if out := task.ReadOutput(); out != "café costs 5€\n" {
		t.Errorf("model text = %q", out)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if n := len(sink.seqs[task.ID()]); n < 2 {
		t.Logf("only %d chunks arrived; the split was not exercised", n)
	}
}

func TestSinkOrderAndSeq(t *testing.T) {
	sink := newRecordingSink()
	tb := newTable(t, Options{Sink: sink})
	var tasks []*Task
	for i := range 3 {
		tasks = append(tasks, start(t, tb, StartOptions{Command: fmt.Sprintf("for i in 1 2 3 4 5; do echo task%d line $i; sleep 0.05; done; exit %d", i, i)}))
	}
	for i, task := range tasks {
		waitDone(t, task)
		eventually(t, "exit notification", func() bool { return sink.exited(task.ID()) })
		want := ""
		for j := 1; j <= 5; j++ {
			want += fmt.Sprintf("task%d line %d\n", i, j)
		}
		if got := sink.text(task.ID()); got != want {
			t.Errorf("%s editor text = %q, want %q", task.ID(), got, want)
		}
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.errs) > 0 {
		t.Errorf("sink protocol errors: %v", sink.errs)
	}
	for i, task := range tasks {
		seqs := sink.seqs[task.ID()]
		for j, s := range seqs {
			if s != int64(j+1) {
				t.Errorf("%s seqs = %v, want 1, 2, 3, …", task.ID(), seqs)
				break
			}
		}
		if got := sink.exits[task.ID()]; got[0] != strconv.Itoa(i) {
			t.Errorf("%s exit = %v, want code %d", task.ID(), got, i)
		}
		var kinds []string
		for _, ev := range sink.order {
			if id, kind, _ := strings.Cut(ev, ":"); id == task.ID() {
				kinds = append(kinds, kind)
			}
		}
		if len(kinds) < 3 || kinds[0] != "open" || kinds[len(kinds)-1] != "exit" {
			t.Errorf("%s events = %v, want open, output…, exit", task.ID(), kinds)
		}
	}
}

func TestEditorInputAndResizeReachProcess(t *testing.T) {
	sink := newRecordingSink()
	tb := newTable(t, Options{Sink: sink})
	task := start(t, tb, StartOptions{Command: `read line; echo "got:$line"; read _; stty size`, Mode: ModePTY})
	eventually(t, "the read", func() bool { return task.Diagnose().Reason == ReasonWaitingForInput })
	if err := tb.Input(task.ID(), "typed in editor\r"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the echo in the editor stream", func() bool { return strings.Contains(sink.text(task.ID()), "got:typed in editor") })
	if err := tb.Resize(task.ID(), 101, 42); err != nil {
		t.Fatal(err)
	}
	if err := tb.Input(task.ID(), "\r"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	readUntil(t, task, "42 101")
	if _, err := tb.Cancel("t99"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Cancel(t99): %v, want ErrNotFound", err)
	}
	if list := tb.List(); len(list) != 1 || list[0].ID != task.ID() || list[0].Cols != 101 {
		t.Errorf("List() = %+v", list)
	}
}

func TestModelTextCleaned(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: `printf '\033[1;31mred\033[0m plain\n'; printf 'get 10%%\rget 50%%\rget 100%%\n'; printf '\033]0;title\007ab\bc\n'; echo done`, Mode: ModePTY})
	waitDone(t, task)
	if got, want := task.ReadOutput(), "red plain\nget 100%\nac\ndone\n"; got != want {
		t.Errorf("model text = %q, want %q", got, want)
	}
}

func TestRingOverflowMarker(t *testing.T) {
	tb := newTable(t, Options{Settings: Settings{OutputLimitBytes: 4096}})
	task := start(t, tb, StartOptions{Command: "seq 1 20000"})
	waitDone(t, task)
	out := task.ReadOutput()
	if !strings.HasPrefix(out, "[") || !strings.Contains(out, "dropped") || !strings.HasSuffix(out, "\n20000\n") {
		t.Errorf("output = %.120q … , want a drop marker first and 20000 last", out)
	}
	if len(out) > 4096+200 {
		t.Errorf("output is %d bytes, over the 4096-byte limit", len(out))
	}
}

type envGate struct{ notes, stops atomic.Int32 }

func (g *envGate) Start(cmd *exec.Cmd, task GateTask) (func(), error) {
	cmd.Env = append(cmd.Env, "GATED_BY=test-gate-"+task.ID())
	task.Note("gate: started " + task.ID())
	g.notes.Add(1)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() { g.stops.Add(1) }, nil
}

type refusingGate struct{}

func (refusingGate) Start(cmd *exec.Cmd, task GateTask) (func(), error) {
	return nil, errors.New("policy says no")
}

func TestGateWrapsStart(t *testing.T) {
	sink := newRecordingSink()
	tb := newTable(t, Options{Sink: sink})
	g := &envGate{}
	task := start(t, tb, StartOptions{Command: `echo "$GATED_BY"`, Gate: g})
	waitDone(t, task)
	out := readUntil(t, task, "test-gate-"+task.ID())
	if !strings.Contains(out, "gate: started") {
		t.Errorf("output %q lacks the gate's note", out)
	}
	eventually(t, "the exit notification", func() bool { return sink.exited(task.ID()) })
	if got := sink.text(task.ID()); !strings.HasPrefix(got, "gate: started "+task.ID()+"\r\n") || !strings.Contains(got, "test-gate-") {
		t.Errorf("editor text = %q, want the gate's note first", got)
	}
	eventually(t, "the gate's stop", func() bool { return g.stops.Load() == 1 })

	_, err := tb.Start(StartOptions{Command: "true", Dir: t.TempDir(), Gate: refusingGate{}})
	if !errors.Is(err, ErrGate) || !strings.Contains(err.Error(), "policy says no") {
		t.Errorf("refused Start: %v, want ErrGate with the gate's reason", err)
	}
}

func TestHoldPausesYield(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: "sleep 0.5"})
	release := task.Hold()
	defer release()
	// While held, a tiny yield cannot expire: Wait returns only at the exit.
	if !task.Wait(context.Background(), time.Millisecond) {
		t.Errorf("Wait returned before the exit while the task was held")
	}
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		key  string
		pty  bool
		want string
	}{
		{"enter", true, "\r"},
		{"Enter", false, "\n"},
		{"ctrl-c", true, "\x03"},
		{"Ctrl+D", true, "\x04"},
		{"esc", true, "\x1b"},
		{"up", true, "\x1b[A"},
		{"f1", true, "\x1bOP"},
		{"ctrl-l", true, "\x0c"},
		{"ctrl-z", true, "\x1a"},
	} {
		got, err := keyBytes(tc.key, tc.pty)
		if err != nil || got != tc.want {
			t.Errorf("keyBytes(%q, %v) = %q, %v, want %q", tc.key, tc.pty, got, err, tc.want)
		}
	}
	if _, err := keyBytes("hyper-x", true); err == nil || !strings.Contains(err.Error(), "enter") {
		t.Errorf("keyBytes(hyper-x) error = %v, want a list of keys", err)
	}
}

func TestFilterSplitEscapeAndRune(t *testing.T) {
	f := textFilter{out: newRing(1 << 16)}
	in := []byte("\x1b[31mgrün\x1b[0m ok\r\n")
	for _, b := range in {
		f.write([]byte{b})
	}
	got, _ := f.out.since(0)
	if string(got) != "grün ok\n" || !utf8.Valid(got) {
		t.Errorf("byte-by-byte filter = %q, want %q", got, "grün ok\n")
	}
}

func TestCompactText(t *testing.T) {
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	got := compactText(b.String(), 1000, 2000)
	if !strings.HasPrefix(got, "line 0\n") || !strings.HasSuffix(got, "line 9999\n") || !strings.Contains(got, "omitted") || len(got) > 3200 {
		t.Errorf("compactText kept %d bytes: %.80q … %q", len(got), got, got[len(got)-40:])
	}
}

const (
	supervisorArg = "whale-test-task-supervisor"
	serverArg     = "whale-test-server"
)

// runTestServer starts tasks that leave sleepers behind, says "ready", and
// waits to be killed.
func runTestServer(m string) {
	if err := BecomeSubreaper(); err != nil {
		fmt.Println("subreaper:", err)
	}
	tb := NewTable(Options{Supervisor: []string{os.Args[0], supervisorArg}})
	dir, _ := os.Getwd()
	if len(os.Args) > 3 && os.Args[3] == "finished" {
		runFinishedTestServer(tb, dir, m)
	}
	for _, o := range []StartOptions{
		{Command: "sleep " + m + " & sleep " + m, Mode: ModePipe},
		{Command: "trap '' HUP TERM; sleep " + m + " & sleep " + m, Mode: ModePTY},
		{Command: "setsid sleep " + m + " & (sleep " + m + " &) ; sleep " + m, Mode: ModePipe},
	} {
		o.Dir = dir
		if _, err := tb.Start(o); err != nil {
			fmt.Println("start:", err)
			os.Exit(1)
		}
	}
	fmt.Println("ready")
	select {}
}

// startTestServer runs this test binary as a server (runTestServer) with
// args and waits until it says "ready".
func startTestServer(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	server := exec.Command(os.Args[0], append([]string{serverArg}, args...)...)
	server.Dir = t.TempDir()
	server.Stderr = os.Stderr
	out, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("server said %q, %v", line, err)
	}
	return server
}

func TestKilledServerLeavesNoProcess(t *testing.T) {
	m := marker()
	server := startTestServer(t, m)
	eventually(t, "all sleepers", func() bool { return len(sleepers(t, m)) == 7 })
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "no sleeper left after the server was killed", func() bool { return len(sleepers(t, m)) == 0 })
}

func TestSupervisedTasks(t *testing.T) {
	tb := newTable(t, Options{Supervisor: []string{os.Args[0], supervisorArg}})
	task := start(t, tb, StartOptions{Command: "tty; exit 5", Mode: ModePTY})
	waitDone(t, task)
	if st := task.Status(); st.ExitCode != 5 || !strings.Contains(task.ReadOutput(), "/dev/pts/") {
		t.Errorf("supervised tty: %+v", st)
	}
	task = start(t, tb, StartOptions{Command: "read -p 'Name: ' n; echo hi $n", Mode: ModePTY})
	eventually(t, "waiting_for_input", func() bool { return task.Diagnose().Reason == ReasonWaitingForInput })
	if err := task.Send("bo", []string{"enter"}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	readUntil(t, task, "hi bo")
	m := marker()
	task = start(t, tb, StartOptions{Command: fmt.Sprintf("sh -c 'sleep %s & sleep %s'", m, m)})
	eventually(t, "sleepers", func() bool { return len(sleepers(t, m)) == 2 })
	if rep := task.Cancel(); rep.Unkillable != 0 {
		t.Errorf("Cancel() = %+v", rep)
	}
	waitDone(t, task)
	if st := task.Status(); st.Signal == "" && st.ExitCode == 0 {
		t.Errorf("canceled supervised task exited cleanly: %+v", st)
	}
	if left := sleepers(t, m); len(left) > 0 {
		t.Errorf("survivors: %v", left)
	}
}

func TestSupervisedBusyTaskIsNotAPrompt(t *testing.T) {
	tb := newTable(t, Options{Supervisor: []string{os.Args[0], supervisorArg}})
	task := start(t, tb, StartOptions{Command: `printf 'Compiling step 3 of 9:'; sleep 1000`, Mode: ModePTY})
	readUntil(t, task, "Compiling")
	if d := task.Diagnose(); d.Reason != ReasonYieldTimeout {
		t.Errorf("Diagnose() = %+v, want yield_timeout", d)
	}
}

func TestChattyBackgroundChildDoesNotHoldTheExit(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: "(while :; do echo tick; sleep 0.1; done) & echo bye", Mode: ModePipe})
	waitDone(t, task)
	if st := task.Status(); st.State != "exited" || st.ExitCode != 0 {
		t.Errorf("Status() = %+v, want exited 0", st)
	}
	if rep := task.Cancel(); rep.AlreadyExited || rep.Unkillable != 0 {
		t.Errorf("Cancel() of the leftover loop = %+v, want it stopped", rep)
	}
}

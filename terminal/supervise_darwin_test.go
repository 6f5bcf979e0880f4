package terminal

// These tests are compiled on every CI run (GOOS=darwin go test -c) but run
// only on a Mac; nothing on Linux exercises proc_darwin.go or
// supervise_darwin.go.

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	darwinSupervisorArg = "whale-test-task-supervisor"
	darwinServerArg     = "whale-test-server"
)

func TestMain(m *testing.M) {
	// The test binary doubles as the task supervisor and as a server that
	// the tests kill.
	if len(os.Args) > 1 && os.Args[1] == darwinSupervisorArg {
		os.Exit(Supervise(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == darwinServerArg {
		runDarwinTestServer(os.Args[2])
		return
	}
	os.Exit(m.Run())
}

// darwinSleepers lists the live `sleep MARKER` processes.
func darwinSleepers(marker string) []int {
	var out []int
	for _, p := range allProcs() {
		if p.state != 'Z' && strings.HasSuffix(commandLine(p.pid), "sleep "+marker) {
			out = append(out, p.pid)
		}
	}
	return out
}

func darwinMarker() string {
	return fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%100000)
}

// runDarwinTestServer starts supervised tasks that leave sleepers behind (a
// background job, one in a PTY that ignores SIGHUP and SIGTERM, one whose
// parent subshell exits), says "ready", and waits to be killed.
func runDarwinTestServer(m string) {
	tb := NewTable(Options{Supervisor: []string{os.Args[0], darwinSupervisorArg}})
	dir, _ := os.Getwd()
	for _, o := range []StartOptions{
		{Command: "sleep " + m + " & sleep " + m, Mode: ModePipe},
		{Command: "trap '' HUP TERM; sleep " + m + " & sleep " + m, Mode: ModePTY},
		{Command: "(sleep " + m + " &) ; sleep " + m, Mode: ModePipe},
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

func TestDarwinKilledServerLeavesNoProcess(t *testing.T) {
	m := darwinMarker()
	server := exec.Command(os.Args[0], darwinServerArg, m)
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
	eventually(t, "all sleepers", func() bool { return len(darwinSleepers(m)) == 6 })
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "no sleeper left after the server was killed", func() bool { return len(darwinSleepers(m)) == 0 })
}

func TestDarwinCancelEndsSessionAndSurvivors(t *testing.T) {
	for _, supervisor := range [][]string{nil, {os.Args[0], darwinSupervisorArg}} {
		tb := newTable(t, Options{Supervisor: supervisor})
		m := darwinMarker()
		task := start(t, tb, StartOptions{Command: "(sleep " + m + " &); sleep " + m + " & echo started", Mode: ModePipe})
		waitDone(t, task)
		eventually(t, "both sleepers as survivors", func() bool { return len(task.Survivors()) == 2 })
		rep := task.Cancel()
		if rep.AlreadyExited || rep.Unkillable != 0 {
			t.Errorf("supervisor %v: Cancel() = %+v", supervisor, rep)
		}
		eventually(t, "no sleeper left after Cancel", func() bool { return len(darwinSleepers(m)) == 0 })
	}
}

func TestDarwinCommandLine(t *testing.T) {
	if got := commandLine(os.Getpid()); !strings.Contains(got, "terminal.test") {
		t.Errorf("commandLine(self) = %q, want the test binary's argv", got)
	}
	if got := commandLine(1 << 30); got != "" {
		t.Errorf("commandLine(no such pid) = %q, want \"\"", got)
	}
	self := os.Getpid()
	if !slices.ContainsFunc(allProcs(), func(p procInfo) bool { return p.pid == self && p.ppid == os.Getppid() }) {
		t.Errorf("allProcs() does not list this process with its parent")
	}
}

func TestProcArgs(t *testing.T) {
	b := binary.NativeEndian.AppendUint32(nil, 3)
	b = append(b, "/bin/sleep\x00\x00\x00\x00sleep\x005\x00a b\x00HOME=/x\x00"...)
	if diff := cmp.Diff([]string{"sleep", "5", "a b"}, procArgs(b)); diff != "" {
		t.Errorf("procArgs (-want +got):\n%s", diff)
	}
	if got := procArgs([]byte{1, 0}); got != nil {
		t.Errorf("procArgs(short) = %q, want nil", got)
	}
}

package terminal

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// underWine reports whether the test runs under Wine, whose ConPTY (8.0)
// starts the process but leaves it with no standard handles and cannot
// resize.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func cmdTable(t *testing.T) *Table {
	t.Helper()
	tab := NewTable(Options{Settings: Settings{Shell: `C:\Windows\System32\cmd.exe`}})
	t.Cleanup(func() { _ = tab.Close() })
	return tab
}

func TestConPTYExitCodeAndOutput(t *testing.T) {
	tab := cmdTable(t)
	task, err := tab.Start(StartOptions{Command: "echo hi-conpty& exit 7", Mode: ModePTY, Cols: 100, Rows: 20})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	st := task.Status()
	if !st.PTY {
		t.Fatalf("the task fell back to pipes: %q", task.ReadOutput())
	}
	if st.ExitCode != 7 {
		t.Errorf("exit code = %d, want 7", st.ExitCode)
	}
	out := task.ReadOutput()
	if underWine() {
		t.Logf("under Wine: output %q (Wine 8.0 gives a pseudoconsole process no standard handles)", out)
		return
	}
	if !strings.Contains(out, "hi-conpty") {
		t.Errorf("output = %q, want hi-conpty in it", out)
	}
}

func TestConPTYInput(t *testing.T) {
	if underWine() {
		t.Skip("Wine 8.0 gives a pseudoconsole process no standard input handle")
	}
	tab := cmdTable(t)
	task, err := tab.Start(StartOptions{Command: "set /p NAME=name? & call echo got-%NAME%", Mode: ModePTY})
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, task, "name?")
	if err := task.Send("whale", []string{"enter"}); err != nil {
		t.Fatal(err)
	}
	readUntil(t, task, "got-whale")
	waitDone(t, task)
}

func TestConPTYResize(t *testing.T) {
	if underWine() {
		t.Skip("Wine 8.0 has no ResizePseudoConsole (not implemented)")
	}
	tab := cmdTable(t)
	task, err := tab.Start(StartOptions{Command: "pause", Mode: ModePTY})
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Resize(132, 40); err != nil {
		t.Fatalf("Resize = %v", err)
	}
	if info := task.Info(); info.Cols != 132 || info.Rows != 40 {
		t.Errorf("size = %dx%d, want 132x40", info.Cols, info.Rows)
	}
	task.Cancel()
}

// sleepHelperEnv makes TestSleepHelper sleep: the tests' long-running child.
const sleepHelperEnv = "WHALE_TEST_SLEEP_HELPER"

func TestSleepHelper(t *testing.T) {
	if os.Getenv(sleepHelperEnv) == "" {
		t.Skip("the helper of TestConPTYCancelEndsTree")
	}
	time.Sleep(5 * time.Minute)
}

func TestConPTYCancelEndsTree(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tab := cmdTable(t)
	// cmd.exe starts the helper, which sleeps: a tree of two in the job.
	task, err := tab.Start(StartOptions{Command: `"` + self + `" -test.run=^TestSleepHelper$`, Mode: ModePTY, Env: []string{sleepHelperEnv + "=1"}})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the helper running in the task's job", func() bool { return len(task.tree()) >= 2 })
	rep := task.Cancel()
	if rep.AlreadyExited || rep.Unkillable != 0 {
		t.Fatalf("Cancel = %+v", rep)
	}
	if !task.Wait(context.Background(), long) {
		t.Fatal("the task did not end after Cancel")
	}
	if n := len(task.tree()); n != 0 {
		t.Errorf("%d processes of the task are left", n)
	}
	t.Logf("Cancel took %s", rep.Took)
}

func TestPipeModeCmdEcho(t *testing.T) {
	tab := cmdTable(t)
	task, err := tab.Start(StartOptions{Command: "echo hi-pipe& exit 3", Mode: ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	if st := task.Status(); st.PTY || st.ExitCode != 3 {
		t.Errorf("status = pty %v exit %d, want pipe and exit 3", st.PTY, st.ExitCode)
	}
	if out := task.ReadOutput(); !strings.Contains(out, "hi-pipe") {
		t.Errorf("output = %q, want hi-pipe in it", out)
	}
}

//go:build linux

package terminal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// daemonCommands start one `sleep MARKER` that outlives the shell, each in
// its own way.
var daemonCommands = []struct{ name, command string }{
	{"setsid", "setsid sleep %s >/dev/null 2>&1 < /dev/null & echo started"},
	{"nohup", "nohup sleep %s >/dev/null 2>&1 & echo started"},
	{"double fork", "(sleep %s &) & echo started"},
	{"background job", "sleep %s >/dev/null 2>&1 & echo started"},
}

func supervised(t *testing.T, o Options) *Table {
	o.Supervisor = []string{os.Args[0], supervisorArg}
	return newTable(t, o)
}

// TestDaemonsAreListedAndCanceled: the task finishes with its shell, lists
// the daemon it left as a survivor, is kept while the daemon runs, and
// Cancel ends the daemon.
func TestDaemonsAreListedAndCanceled(t *testing.T) {
	for _, mode := range []Mode{ModePipe, ModePTY} {
		for _, dc := range daemonCommands {
			t.Run(string(mode)+"/"+dc.name, func(t *testing.T) {
				sink := newRecordingSink()
				tb := supervised(t, Options{Sink: sink, ReleaseAfter: 20 * time.Millisecond})
				m := marker()
				t.Cleanup(func() { killSleepers(t, m) })
				task := start(t, tb, StartOptions{Command: fmt.Sprintf(dc.command, m), Mode: mode})
				waitDone(t, task)
				readUntil(t, task, "started")
				eventually(t, "the exit notification", func() bool { return sink.exited(task.ID()) })
				if st := task.Status(); st.State != "exited" || st.ExitCode != 0 || st.Canceled {
					t.Errorf("Status() = %+v, want exited 0", st)
				}
				eventually(t, "the daemon to be listed", func() bool {
					return hasSleeper(task.Status().Survivors, m)
				})
				pids := sleepers(t, m)
				if len(pids) != 1 {
					t.Fatalf("sleepers = %v, want the one daemon", pids)
				}
				time.Sleep(300 * time.Millisecond)
				if _, err := tb.Get(task.ID()); err != nil {
					t.Errorf("Get(%s) while its daemon runs = %v, want it kept", task.ID(), err)
				}
				var listed bool
				for _, st := range tb.List() {
					listed = listed || (st.ID == task.ID() && hasSleeper(st.Survivors, m))
				}
				if !listed {
					t.Errorf("List() = %+v, want %s with the daemon", tb.List(), task.ID())
				}
				rep := task.Cancel()
				if rep.AlreadyExited || rep.Unkillable != 0 || !hasSleeper(rep.Ended, m) {
					t.Errorf("Cancel() = %+v, want the daemon ended", rep)
				}
				if left := sleepers(t, m); len(left) > 0 {
					t.Errorf("daemon left after Cancel: %v", left)
				}
				if st := task.Status(); len(st.Survivors) != 0 || st.Canceled || st.ExitCode != 0 {
					t.Errorf("Status() after Cancel = %+v, want exit 0 as before and no survivors", st)
				}
				if rep := task.Cancel(); !rep.AlreadyExited {
					t.Errorf("second Cancel() = %+v, want AlreadyExited", rep)
				}
			})
		}
	}
}

// TestShellExitIsReportedWhileJobsRun: the task is finished when the shell
// exits, with the shell's own status, not when what it left behind ends.
func TestShellExitIsReportedWhileJobsRun(t *testing.T) {
	tb := supervised(t, Options{})
	for _, tc := range []struct {
		command  string
		code     int
		signal   string
		survives bool
	}{
		{"setsid sleep %s >/dev/null 2>&1 & exit 7", 7, "", true},
		{"nohup sleep %s >/dev/null 2>&1 & kill -TERM $$", 128 + 15, "SIGTERM", true},
		{"true %s", 0, "", false},
	} {
		m := marker()
		t.Cleanup(func() { killSleepers(t, m) })
		task := start(t, tb, StartOptions{Command: fmt.Sprintf(tc.command, m), Mode: ModePipe})
		waitDone(t, task)
		st := task.Status()
		if st.ExitCode != tc.code || st.Signal != tc.signal {
			t.Errorf("%q: Status() = %+v, want exit %d %s", tc.command, st, tc.code, tc.signal)
		}
		if tc.survives {
			// The shell may exit before its child reached exec.
			eventually(t, "the sleeper to run", func() bool { return len(sleepers(t, m)) == 1 })
		} else if len(st.Survivors) != 0 {
			t.Errorf("%q: Survivors = %+v, want none", tc.command, st.Survivors)
		}
	}
}

// TestKilledServerEndsDaemonsOfFinishedTasks: the server's death (SIGKILL)
// ends what finished tasks left running, checked by scanning /proc.
func TestKilledServerEndsDaemonsOfFinishedTasks(t *testing.T) {
	m := marker()
	t.Cleanup(func() { killSleepers(t, m) })
	server := startTestServer(t, m, "finished")
	if got := sleepers(t, m); len(got) != len(daemonCommands) {
		t.Fatalf("sleepers = %v, want one per daemon command", got)
	}
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "no daemon left after the server was killed", func() bool { return len(sleepers(t, m)) == 0 })
}

// runFinishedTestServer runs the daemon commands, waits until each task
// finished and lists its daemon, says "ready", and waits to be killed.
func runFinishedTestServer(tb *Table, dir, m string) {
	for _, dc := range daemonCommands {
		task, err := tb.Start(StartOptions{Command: fmt.Sprintf(dc.command, m), Dir: dir, Mode: ModePipe})
		if err != nil {
			fmt.Println("start:", err)
			os.Exit(1)
		}
		deadline := time.Now().Add(long)
		for task.Running() || !hasSleeper(task.Survivors(), m) {
			if time.Now().After(deadline) {
				fmt.Println("task did not finish with its daemon:", task.Status())
				os.Exit(1)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	fmt.Println("ready")
	select {}
}

func TestCommandTooLong(t *testing.T) {
	tb := newTable(t, Options{})
	limit := maxCommandBytes()
	m := marker()
	command := "true " + m + " " + strings.Repeat("x", limit)
	_, err := tb.Start(StartOptions{Command: command, Dir: t.TempDir()})
	var tooLong *CommandTooLongError
	if !errors.As(err, &tooLong) || tooLong.Bytes != len(command) || tooLong.Limit != limit {
		t.Fatalf("Start(%d bytes) = %v, want a CommandTooLongError with the sizes", len(command), err)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(len(command))) || !strings.Contains(err.Error(), strconv.Itoa(limit)) {
		t.Errorf("error %q does not name both sizes", err)
	}
	// Just under the limit runs.
	task := start(t, tb, StartOptions{Command: ": " + strings.Repeat("x", limit-2)})
	waitDone(t, task)
	if st := task.Status(); st.ExitCode != 0 {
		t.Errorf("command of %d bytes: %+v, want exit 0", limit, st)
	}
}

func hasSleeper(ps []Process, m string) bool {
	for _, p := range ps {
		// The sleep itself, not a setsid or nohup that has not exec'd it
		// yet (its command line ends the same way).
		if f := strings.Fields(p.Command); len(f) == 2 && filepath.Base(f[0]) == "sleep" && f[1] == m {
			return true
		}
	}
	return false
}

// killSleepers ends what a failed test left behind.
func killSleepers(t *testing.T, m string) {
	for _, s := range sleepers(t, m) {
		if pid, err := strconv.Atoi(strings.Fields(s)[0]); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

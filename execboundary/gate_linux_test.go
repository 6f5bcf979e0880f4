//go:build linux

package execboundary

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/whale-ls/whale-ls/internal/probe"
	"github.com/whale-ls/whale-ls/internal/syncbuf"
	"golang.org/x/sys/unix"
)

// The test binary doubles as the exec-gate helper (and as the nested
// listener of TestEnforceRefusesUnderNestedListener).
const (
	helperEnv = "EXECBOUNDARY_TEST_HELPER"
	nestEnv   = "EXECBOUNDARY_TEST_NESTED"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" && len(os.Args) > 1 && (os.Args[1] == "--fd" || os.Args[1] == "--probe") {
		os.Exit(RunHelper(os.Args[1:], nil))
	}
	os.Setenv(helperEnv, "1") // children that run the helper find it
	os.Exit(m.Run())
}

// fakeTask records notes, holds and events.
type fakeTask struct {
	id     string
	mu     sync.Mutex
	notes  []string
	events []Event
	holds  atomic.Int32
	maxH   atomic.Int32
}

func (f *fakeTask) ID() string { return f.id }
func (f *fakeTask) Note(line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, line)
}
func (f *fakeTask) Hold() func() {
	n := f.holds.Add(1)
	if n > f.maxH.Load() {
		f.maxH.Store(n)
	}
	var once sync.Once
	return func() { once.Do(func() { f.holds.Add(-1) }) }
}
func (f *fakeTask) ExecEvent(ev Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, ev)
}
func (f *fakeTask) text() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.notes, "\n")
}

type approverFunc func(ctx context.Context, a Approval) (Answer, error)

func (f approverFunc) Approve(ctx context.Context, a Approval) (Answer, error) { return f(ctx, a) }

func testGate(t *testing.T, rules string, approver Approver) (*Gate, string) {
	t.Helper()
	state := t.TempDir()
	g := NewGate(Options{Approver: approver, Audit: NewAuditLog(state), Helper: []string{os.Args[0]}})
	if err := g.Configure("enforce", json.RawMessage(rules), 0); err != nil {
		t.Fatal(err)
	}
	if st := g.State(); !st.Active {
		if r := probe.SeccompUserNotif(); r.Present {
			t.Fatalf("the exec gate cannot be installed although %s: %s", r.Reason, st.Reason)
		}
		t.Skipf("skipped: the exec gate cannot be installed here: %s", st.Reason)
	}
	return g, state
}

type runResult struct {
	out  string
	code int
	task *fakeTask
}

// gatedRun is a script started behind a gate: its output so far, its task,
// and done, which yields Wait's error.
type gatedRun struct {
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	task *fakeTask
	stop func()
	done chan error
}

// launchGated starts script with bash behind g in dir.
func launchGated(t *testing.T, g *Gate, dir, script string) gatedRun {
	t.Helper()
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	task := &fakeTask{id: "t1"}
	stop, err := g.Start(cmd, task)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return gatedRun{cmd: cmd, out: out, task: task, stop: stop, done: done}
}

// runGated runs script with bash behind g in dir and waits for it.
func runGated(t *testing.T, g *Gate, dir, script string) runResult {
	t.Helper()
	r := launchGated(t, g, dir, script)
	cmd, out, task, stop, done := r.cmd, r.out, r.task, r.stop, r.done
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%q did not finish; output so far:\n%s", script, out.String())
	}
	if stop != nil {
		stop()
	}
	return runResult{out: out.String(), code: cmd.ProcessState.ExitCode(), task: task}
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func needLoader(t *testing.T, dir string) {
	if _, err := os.Stat("/lib64/ld-linux-x86-64.so.2"); err != nil {
		t.Skip("no /lib64/ld-linux-x86-64.so.2")
	}
}

// TestBypassSuite tries many ways to run a denied program; each must leave
// its victim file in place, while the controls must run.
func TestBypassSuite(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the bypass suite's paths and the int 0x80 case are for x86-64")
	}
	g, _ := testGate(t, `[{"program":"rm","decision":"deny"}]`, nil)
	need := func(t *testing.T, prog string) {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed", prog)
		}
	}
	cases := []struct {
		name   string
		needs  string
		setup  func(t *testing.T, dir string)
		script string
	}{
		{name: "plain name", script: `rm -f victim`},
		{name: "absolute path", script: `/usr/bin/rm -f victim`},
		{name: "relative path", script: `d=$PWD; cd /usr/bin && ./rm -f "$d/victim"`},
		{name: "symlink", script: `ln -s /usr/bin/rm del && ./del -f victim`},
		{name: "hard link", setup: func(t *testing.T, dir string) {
			if err := os.Link("/usr/bin/rm", filepath.Join(dir, "hl")); err != nil {
				t.Skipf("cannot hard-link /usr/bin/rm here: %v", err)
			}
		}, script: `./hl -f victim`},
		{name: "copy", script: `cp /usr/bin/rm ./x && ./x -f victim`},
		{name: "command substitution", script: `echo $(rm -f victim)`},
		{name: "pipe and xargs", script: `echo victim | xargs rm -f`},
		{name: "sh -c", script: `sh -c 'rm -f victim'`},
		{name: "env", script: `env rm -f victim`},
		{name: "nice", script: `nice rm -f victim`},
		{name: "timeout", script: `timeout 20 rm -f victim`},
		{name: "setsid", script: `setsid -w rm -f victim`},
		{name: "nohup", script: `nohup rm -f victim`},
		{name: "exec builtin", script: `exec rm -f victim`},
		{name: "find -exec", script: `find . -name victim -exec rm -f {} \;`},
		{name: "make recipe", needs: "make", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\trm -f victim\n"), 0o644)
		}, script: `make`},
		{name: "shebang script", setup: func(t *testing.T, dir string) {
			// The kernel runs "/usr/bin/rm -f ./victim": the script is its
			// own victim.
			os.WriteFile(filepath.Join(dir, "victim"), []byte("#!/usr/bin/rm -f\n"), 0o755)
			os.Chmod(filepath.Join(dir, "victim"), 0o755)
		}, script: `./victim`},
		{name: "python os.execv", needs: "python3", script: `python3 -c 'import os; os.execv("/usr/bin/rm", ["rm", "-f", "victim"])'`},
		{name: "python subprocess", needs: "python3", script: `python3 -c 'import subprocess; subprocess.call(["rm", "-f", "victim"])'`},
		{name: "python fexecve (execveat)", needs: "python3", script: `python3 -c 'import os; fd = os.open("/usr/bin/rm", os.O_RDONLY); os.execve(fd, ["rm", "-f", "victim"], dict(os.environ))'`},
		{name: "perl exec", needs: "perl", script: `perl -e 'exec "/usr/bin/rm", "-f", "victim"'`},
		{name: "dynamic loader", setup: func(t *testing.T, dir string) {
			if _, err := os.Stat("/lib64/ld-linux-x86-64.so.2"); err != nil {
				t.Skip("no /lib64/ld-linux-x86-64.so.2")
			}
		}, script: `/lib64/ld-linux-x86-64.so.2 /usr/bin/rm -f victim`},
		// The next three first make the task's decision cache allow the
		// same program and arguments, then change what they run.
		{name: "dynamic loader, allowed in another folder", setup: needLoader, script: `mkdir A && cp /usr/bin/true A/x && cp /usr/bin/rm x && (cd A && /lib64/ld-linux-x86-64.so.2 ./x -f victim); /lib64/ld-linux-x86-64.so.2 ./x -f victim`},
		{name: "dynamic loader, target rewritten", setup: needLoader, script: `cp /usr/bin/true x && /lib64/ld-linux-x86-64.so.2 ./x victim; cat /usr/bin/rm > x; /lib64/ld-linux-x86-64.so.2 ./x victim`},
		{name: "shebang interpreter rewritten", script: `cp /usr/bin/true interp && printf '#!%s/interp\n' "$PWD" > s && chmod +x s && ./s victim; cat /usr/bin/rm > interp; ./s victim`},
		// The program itself changes at the same path after the cache
		// allowed it with the same arguments: a new file renamed over it (a
		// new inode), the same file rewritten in place (new size and
		// times), a symlink pointed elsewhere.
		{name: "program replaced by rename", script: `cp /usr/bin/true x && ./x -f victim; cp /usr/bin/rm y && mv -f y x; ./x -f victim`},
		{name: "program rewritten in place", script: `cp /usr/bin/true x && ./x -f victim; cat /usr/bin/rm > x; ./x -f victim`},
		{name: "symlink retargeted", script: `ln -s /usr/bin/true x && ./x -f victim; ln -sfn /usr/bin/rm x; ./x -f victim`},
		{name: "memfd", needs: "python3", script: `python3 -c '
import os
fd = os.memfd_create("x", 0)
os.write(fd, open("/usr/bin/rm", "rb").read())
os.execv("/proc/self/fd/%d" % fd, ["rm", "-f", "victim"])'`},
		// Only where the machine runs int 0x80 at all: some hypervisors
		// fault it, and then no task can use it either.
		{name: "i386 int 0x80", setup: func(t *testing.T, dir string) {
			probe.Need(t, probe.Int80(t.TempDir()))
			os.WriteFile(filepath.Join(dir, "int80"), probe.I386Execve("/usr/bin/rm", "-f", "victim"), 0o755)
		}, script: `./int80`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				need(t, tc.needs)
			}
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			res := runGated(t, g, dir, tc.script)
			if _, err := os.Stat(victim); err != nil {
				t.Fatalf("%q removed the victim (exit %d); output:\n%s\nnotes:\n%s", tc.script, res.code, res.out, res.task.text())
			}
			if !strings.Contains(res.task.text(), "whale: policy denied") {
				t.Errorf("%q left no denial line in the task output; notes:\n%s\noutput:\n%s", tc.script, res.task.text(), res.out)
			}
		})
	}
	t.Run("background job outlives the shell", func(t *testing.T) {
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim")
		os.WriteFile(victim, []byte("keep me\n"), 0o644)
		res := runGated(t, g, dir, `(sleep 0.3; rm -f victim; touch attempted) >/dev/null 2>&1 &`)
		waitForFile(t, filepath.Join(dir, "attempted"))
		if _, err := os.Stat(victim); err != nil {
			t.Fatalf("the background job removed the victim; notes:\n%s", res.task.text())
		}
	})

	controls := []struct{ name, needs, script, want string }{
		{name: "cat", script: `cat victim`, want: "keep me"},
		{name: "cp", script: `cp victim copy && cat copy`, want: "keep me"},
		{name: "env true", script: `env true && echo ran`, want: "ran"},
		{name: "python print", needs: "python3", script: `python3 -c 'print("py" + "thon")'`, want: "python"},
		{name: "perl print", needs: "perl", script: `perl -e 'print "pe" . "rl\n"'`, want: "perl"},
		{name: "missing program", script: `no-such-program-here; echo rc=$?`, want: "rc=127"},
		{name: "pipeline", script: `printf 'b\na\n' | sort | head -1`, want: "a"},
	}
	for _, c := range controls {
		t.Run("control "+c.name, func(t *testing.T) {
			if c.needs != "" {
				need(t, c.needs)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "victim"), []byte("keep me\n"), 0o644)
			res := runGated(t, g, dir, c.script)
			if !strings.Contains(res.out, c.want) {
				t.Errorf("control %q printed %q, want %q; notes:\n%s", c.script, res.out, c.want, res.task.text())
			}
			if strings.Contains(res.task.text(), "denied") {
				t.Errorf("control %q was denied: %s", c.script, res.task.text())
			}
		})
	}
}

func readAudit(t *testing.T, dir string) []AuditEntry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []AuditEntry
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var e AuditEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// TestAskApproveDenyAndSession: "ask" reaches the approver with the task's
// yield timer held; allow_once runs, deny refuses, allow_session is
// remembered; every decision is in the audit log (0700 folder, 0600 file).
func TestAskApproveDenyAndSession(t *testing.T) {
	var mu sync.Mutex
	var asked []Approval
	answer := AllowOnce
	approver := approverFunc(func(ctx context.Context, a Approval) (Answer, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, a)
		return answer, nil
	})
	g, state := testGate(t, `[{"program":"rm","argsAny":["-*r*"],"decision":"ask"}]`, approver)
	setAnswer := func(a Answer) { mu.Lock(); answer = a; mu.Unlock() }
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(asked) }

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	res := runGated(t, g, dir, `rm -r a; echo rc=$?`)
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Fatalf("allow_once: a still exists; output %q notes %q", res.out, res.task.text())
	}
	if res.task.maxH.Load() == 0 || res.task.holds.Load() != 0 {
		t.Errorf("holds during the approval: max %d, left %d; want ≥1 and 0", res.task.maxH.Load(), res.task.holds.Load())
	}
	mu.Lock()
	first := asked[0]
	mu.Unlock()
	if first.Program != "/usr/bin/rm" || strings.Join(first.Argv, " ") != "rm -r a" || first.Cwd != dir || !strings.Contains(first.Rule, "ask") || !strings.Contains(first.Command, "rm -r a") {
		t.Errorf("approval = %+v", first)
	}

	setAnswer(DenyOnce)
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	res = runGated(t, g, dir, `rm -r b; echo rc=$?`)
	if _, err := os.Stat(filepath.Join(dir, "b")); err != nil {
		t.Fatalf("deny: b was removed")
	}
	if !strings.Contains(res.task.text(), "whale: policy denied /usr/bin/rm") || !strings.Contains(res.out, "rc=126") {
		t.Errorf("deny: notes %q output %q", res.task.text(), res.out)
	}

	setAnswer(AllowSession)
	os.MkdirAll(filepath.Join(dir, "c"), 0o755)
	runGated(t, g, dir, `rm -r c`)
	before := count()
	os.MkdirAll(filepath.Join(dir, "c"), 0o755)
	runGated(t, g, dir, `rm -r c`)
	if _, err := os.Stat(filepath.Join(dir, "c")); err == nil || count() != before {
		t.Errorf("allow_session, the same command again: c exists=%v, prompts %d → %d; want removed without a prompt", err == nil, before, count())
	}
	// The session answer allowed that command, not the rule: another
	// command the rule asks about is asked about.
	setAnswer(DenyOnce)
	os.MkdirAll(filepath.Join(dir, "d"), 0o755)
	runGated(t, g, dir, `rm -r d`)
	if _, err := os.Stat(filepath.Join(dir, "d")); err != nil || count() != before+1 {
		t.Errorf("allow_session, another command: d exists=%v, prompts %d → %d; want it asked about (and denied)", err == nil, before, count())
	}

	entries := readAudit(t, state)
	var by []string
	for _, e := range entries {
		if e.Program == "/usr/bin/rm" {
			by = append(by, e.Decision+"/"+e.DecidedBy)
		}
	}
	if got := strings.Join(by, " "); got != "allow/user deny/user allow/user allow/session deny/user" {
		t.Errorf("audit decisions for rm = %q", got)
	}
	fi, _ := os.Stat(state)
	ff, _ := os.Stat(filepath.Join(state, "audit.jsonl"))
	if fi.Mode().Perm() != 0o700 || ff.Mode().Perm() != 0o600 {
		t.Errorf("audit modes: folder %v file %v, want 0700 and 0600", fi.Mode().Perm(), ff.Mode().Perm())
	}
}

func TestApprovalTimeoutDenies(t *testing.T) {
	approver := approverFunc(func(ctx context.Context, a Approval) (Answer, error) {
		<-ctx.Done()
		return DenyOnce, ErrApprovalTimeout
	})
	g, state := testGate(t, `[{"program":"rm","decision":"ask"}]`, approver)
	if err := g.Configure("enforce", json.RawMessage(`[{"program":"rm","decision":"ask"}]`), 200); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "victim"), nil, 0o644)
	res := runGated(t, g, dir, `rm victim`)
	if _, err := os.Stat(filepath.Join(dir, "victim")); err != nil {
		t.Fatal("the victim was removed without an answer")
	}
	if !strings.Contains(res.task.text(), "nobody answered the approval in time") {
		t.Errorf("notes = %q", res.task.text())
	}
	if e := readAudit(t, state); e[len(e)-1].DecidedBy != ByTimeout {
		t.Errorf("last audit entry = %+v, want decided by timeout", e[len(e)-1])
	}
}

// TestEnforceRefusesUnderNestedListener runs the inner test in a child
// process that already holds a seccomp listener: the gate's helper then
// gets EBUSY; enforce refuses, best-effort runs unchecked and says so.
func TestEnforceRefusesUnderNestedListener(t *testing.T) {
	if os.Getenv(nestEnv) == "1" {
		nestedInner(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnforceRefusesUnderNestedListener$", "-test.v")
	cmd.Env = append(os.Environ(), nestEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("inner test failed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("nested: ok")) {
		t.Fatalf("inner test did not run to the end:\n%s", out)
	}
}

func nestedInner(t *testing.T) {
	runtime.LockOSThread()
	allow := []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}
	prog := unix.SockFprog{Len: 1, Filter: &allow[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_TSYNC|unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		t.Skipf("cannot install the outer listener: %v", errno)
	}
	defer unix.Close(int(fd))

	g := NewGate(Options{Audit: NewAuditLog(t.TempDir()), Helper: []string{os.Args[0]}})
	g.Configure("enforce", nil, 0)
	cmd := exec.Command("/bin/true")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	_, err := g.Start(cmd, &fakeTask{id: "t1"})
	if err == nil || !strings.Contains(err.Error(), "another seccomp listener") || !strings.Contains(err.Error(), "best-effort") {
		t.Fatalf("enforce under a listener: err = %v, want a refusal naming the listener and best-effort", err)
	}
	if st := g.State(); st.Active || !strings.Contains(st.Text(), "refused") {
		t.Errorf("State after EBUSY = %+v (%s)", st, st.Text())
	}

	g.Configure("best-effort", nil, 0)
	dir := t.TempDir()
	task := &fakeTask{id: "t2"}
	cmd = exec.Command("/bin/sh", "-c", "echo unchecked > out")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	stop, err := g.Start(cmd, task)
	if err != nil {
		t.Fatalf("best-effort Start: %v", err)
	}
	cmd.Wait()
	if stop != nil {
		stop()
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out")); string(b) != "unchecked\n" {
		t.Errorf("best-effort did not run the command: %q", b)
	}
	if !strings.Contains(task.text(), "not active") || len(task.events) != 1 || task.events[0].Kind != "unchecked" {
		t.Errorf("best-effort notes %q events %+v", task.text(), task.events)
	}
	fmt.Println("nested: ok")
}

// sharedRig is the approver of the shared-prompt tests: it counts prompts,
// reports each one on asked and answers what answer receives, or fails
// the exec when its context ends (recording the cause).
type sharedRig struct {
	prompts atomic.Int32
	asked   chan Approval
	answer  chan Answer
	// ended receives the cause of a prompt whose context ended.
	ended chan error
}

func newSharedRig() *sharedRig {
	return &sharedRig{asked: make(chan Approval, 8), answer: make(chan Answer, 8), ended: make(chan error, 8)}
}

func (r *sharedRig) Approve(ctx context.Context, a Approval) (Answer, error) {
	r.prompts.Add(1)
	r.asked <- a
	select {
	case ans := <-r.answer:
		return ans, nil
	case <-ctx.Done():
		r.ended <- context.Cause(ctx)
		return DenyOnce, ctx.Err()
	}
}

// sharedGate is testGate with rm -rf asking, and a channel that receives
// the number of execs waiting for a prompt each time one joins it.
func sharedGate(t *testing.T, rig *sharedRig) (*Gate, string, chan int) {
	t.Helper()
	g, state := testGate(t, `[{"program":"rm","argsAny":["-*r*"],"decision":"ask"}]`, rig)
	joined := make(chan int, 8)
	g.onJoin = func(n int) { joined <- n }
	return g, state, joined
}

// receive receives from ch, reporting an error after a generous timeout.
func receive[T any](t *testing.T, ch <-chan T, what string) (T, bool) {
	t.Helper()
	select {
	case v := <-ch:
		return v, true
	case <-time.After(30 * time.Second):
		t.Errorf("timed out waiting for %s", what)
		var zero T
		return zero, false
	}
}

// within is receive that ends the test on a timeout.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	v, ok := receive(t, ch, what)
	if !ok {
		t.FailNow()
	}
	return v
}

// alongside runs f in a goroutine that the test waits for when it ends; f
// must not call FailNow.
func alongside(t *testing.T, f func()) {
	done := make(chan struct{})
	t.Cleanup(func() { <-done })
	go func() {
		defer close(done)
		f()
	}()
}

// rmEntries returns "decision/decidedBy[/shared]" of the audit entries for
// rm, waiting until there are n of them.
func rmEntries(t *testing.T, state string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got []string
		raw, _ := os.ReadFile(filepath.Join(state, "audit.jsonl"))
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var e AuditEntry
			if json.Unmarshal([]byte(line), &e) != nil || filepath.Base(e.Program) != "rm" {
				continue
			}
			s := e.Decision + "/" + e.DecidedBy
			if e.Shared {
				s += "/shared"
			}
			got = append(got, s)
		}
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// promptsLeft waits until no goroutine answers or watches a prompt, and
// reports the stacks of those left after a generous timeout.
func promptsLeft(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		var left []string
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "(*taskGate).prompt") || strings.Contains(g, "(*taskGate).watch") {
				left = append(left, g)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines of a prompt are left:\n%s", strings.Join(left, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startGated starts script behind g in dir without waiting for it; the
// returned function kills what is left of the task and waits for it.
func startGated(t *testing.T, g *Gate, dir, script string) (task *fakeTask, done <-chan error, kill func()) {
	t.Helper()
	r := launchGated(t, g, dir, script)
	kill = func() {
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		within(t, r.done, "the killed task to end")
		if r.stop != nil {
			r.stop()
		}
	}
	return r.task, r.done, kill
}

// TestConcurrentIdenticalAsksShareOnePrompt: two identical execs of one
// task that both need "ask" get one prompt; both run after allow, both are
// refused after deny, and each has its audit line.
func TestConcurrentIdenticalAsksShareOnePrompt(t *testing.T) {
	for _, tc := range []struct {
		answer  Answer
		wantRan bool
		wantRC  string
		audit   string
	}{
		{answer: AllowOnce, wantRan: true, wantRC: "rc1=0 rc2=0", audit: "allow/user allow/user/shared"},
		{answer: DenyOnce, wantRan: false, wantRC: "rc1=126 rc2=126", audit: "deny/user deny/user/shared"},
	} {
		t.Run(string(tc.answer), func(t *testing.T) {
			rig := newSharedRig()
			g, state, joined := sharedGate(t, rig)
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			alongside(t, func() {
				if _, ok := receive(t, rig.asked, "the prompt"); !ok {
					return
				}
				if n, ok := receive(t, joined, "the second exec to join the prompt"); ok && n != 2 {
					t.Errorf("execs waiting for the prompt = %d, want 2", n)
				}
				rig.answer <- tc.answer
			})
			res := runGated(t, g, dir, `rm -rf victim & a=$!; rm -rf victim & b=$!; wait $a; echo rc1=$?; wait $b; echo rc2=$?`)
			if n := rig.prompts.Load(); n != 1 {
				t.Errorf("prompts = %d, want 1", n)
			}
			if _, err := os.Stat(victim); (err == nil) == tc.wantRan {
				t.Errorf("victim exists = %v after %s, want %v; output %q notes %q", err == nil, tc.answer, !tc.wantRan, res.out, res.task.text())
			}
			// Each rc on its own: the shell's error lines may come between.
			for _, rc := range strings.Fields(tc.wantRC) {
				if !strings.Contains(res.out, rc) {
					t.Errorf("output = %q, want %q", res.out, rc)
				}
			}
			if n := strings.Count(res.task.text(), "whale: policy denied"); !tc.wantRan && n != 2 {
				t.Errorf("denial lines = %d, want 2; notes %q", n, res.task.text())
			}
			if got := strings.Join(rmEntries(t, state, 2), " "); got != tc.audit {
				t.Errorf("audit for rm = %q, want %q", got, tc.audit)
			}
		})
	}
}

// writeVictims creates files for allowed execs to remove.
func writeVictims(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wantRemoved checks that an allowed rm removed each victim.
func wantRemoved(t *testing.T, dir string, res runResult, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s survived an allowed rm; output %q notes %q", name, res.out, res.task.text())
		}
	}
}

// TestDifferentAsksPromptSeparately: two different execs that need "ask"
// at the same time get a prompt each, and neither waits for the other's.
func TestDifferentAsksPromptSeparately(t *testing.T) {
	rig := newSharedRig()
	g, state, joined := sharedGate(t, rig)
	dir := t.TempDir()
	writeVictims(t, dir, "v1", "v2")
	alongside(t, func() {
		// Both prompts are pending before either is answered.
		if _, ok := receive(t, rig.asked, "the first prompt"); !ok {
			return
		}
		receive(t, rig.asked, "the second prompt")
		rig.answer <- AllowOnce
		rig.answer <- AllowOnce
	})
	res := runGated(t, g, dir, `rm -rf v1 & rm -rf v2 & wait`)
	if n := rig.prompts.Load(); n != 2 {
		t.Errorf("prompts = %d, want 2", n)
	}
	wantRemoved(t, dir, res, "v1", "v2")
	if got := strings.Join(rmEntries(t, state, 2), " "); got != "allow/user allow/user" {
		t.Errorf("audit for rm = %q, want two unshared user decisions", got)
	}
	select {
	case n := <-joined:
		t.Errorf("an exec joined another's prompt (%d waiting)", n)
	default:
	}
}

// TestAllowForSessionSettlesOtherPrompts: two tasks prompt about the same
// command at once; "allow for this session" on one withdraws the other,
// which runs as allowed for the session. The answer allows that command
// only: another command under the same rule is asked about.
func TestAllowForSessionSettlesOtherPrompts(t *testing.T) {
	rig := newSharedRig()
	g, state, _ := sharedGate(t, rig)
	dir := t.TempDir()
	writeVictims(t, dir, "v1")
	alongside(t, func() {
		if _, ok := receive(t, rig.asked, "the first prompt"); !ok {
			return
		}
		if _, ok := receive(t, rig.asked, "the second prompt"); !ok {
			return
		}
		rig.answer <- AllowSession
		if cause, ok := receive(t, rig.ended, "the other prompt to be withdrawn"); ok && !errors.Is(cause, errAllowedForSession) {
			t.Errorf("the other prompt ended with %v, want errAllowedForSession", cause)
		}
	})
	results := make(chan runResult, 2)
	for range 2 {
		go func() { results <- runGated(t, g, dir, `rm -rf v1`) }()
	}
	res := <-results
	<-results
	if n := rig.prompts.Load(); n != 2 {
		t.Errorf("prompts = %d, want 2", n)
	}
	wantRemoved(t, dir, res, "v1")
	entries := rmEntries(t, state, 2)
	slices.Sort(entries) // the two answers are written in either order
	if got := strings.Join(entries, " "); got != "allow/session allow/user" {
		t.Errorf("audit for rm = %q, want one user answer and one session answer", got)
	}
	// The same command later asks no one; another one is asked about.
	writeVictims(t, dir, "v1", "v3")
	runGated(t, g, dir, `rm -rf v1`)
	if n := rig.prompts.Load(); n != 2 {
		t.Errorf("prompts after allow for this session = %d, want still 2", n)
	}
	alongside(t, func() {
		if _, ok := receive(t, rig.asked, "the prompt about another command"); ok {
			rig.answer <- DenyOnce
		}
	})
	runGated(t, g, dir, `rm -rf v3`)
	if n := rig.prompts.Load(); n != 3 {
		t.Errorf("prompts after another command = %d, want 3", n)
	}
}

// TestRepeatedDenialSaysWhy: an identical exec after a denial is refused
// from the task's cache without a second prompt, and its line still says
// who refused it.
func TestRepeatedDenialSaysWhy(t *testing.T) {
	rig := newSharedRig()
	g, _, _ := sharedGate(t, rig)
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me\n"), 0o644)
	alongside(t, func() {
		if _, ok := receive(t, rig.asked, "the prompt"); ok {
			rig.answer <- DenyOnce
		}
	})
	res := runGated(t, g, dir, `rm -rf victim; rm -rf victim; echo done`)
	if n := rig.prompts.Load(); n != 1 {
		t.Errorf("prompts = %d, want 1", n)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("victim removed: %v; output %q", err, res.out)
	}
	if n := strings.Count(res.task.text(), "the user said no"); n != 2 {
		t.Errorf("denial lines saying the user said no = %d, want 2; notes %q", n, res.task.text())
	}
}

// TestCancelledTaskWithdrawsSharedPrompt: killing the task while two execs
// wait for one prompt withdraws the prompt (the approver's context ends)
// and records both execs as gone.
func TestCancelledTaskWithdrawsSharedPrompt(t *testing.T) {
	rig := newSharedRig()
	g, state, joined := sharedGate(t, rig)
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me\n"), 0o644)
	_, _, kill := startGated(t, g, dir, `rm -rf victim & rm -rf victim & wait`)
	within(t, rig.asked, "the prompt")
	within(t, joined, "the second exec to join the prompt")
	kill()
	if cause := within(t, rig.ended, "the prompt to be withdrawn"); !errors.Is(cause, errGone) {
		t.Errorf("the prompt ended with %v, want %v", cause, errGone)
	}
	if got := strings.Join(rmEntries(t, state, 2), " "); got != "deny/gone deny/gone/shared" {
		t.Errorf("audit for rm = %q, want both execs gone", got)
	}
	promptsLeft(t)
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the victim was removed")
	}
	if n := rig.prompts.Load(); n != 1 {
		t.Errorf("prompts = %d, want 1", n)
	}
}

// TestDeadExecsOfASharedPrompt: while the task runs on, a shared prompt
// stays for the exec still waiting when the other's process dies, and is
// withdrawn once no waiting exec is left.
func TestDeadExecsOfASharedPrompt(t *testing.T) {
	const two = `sh -c 'echo $$ > p1; exec rm -rf victim' & sh -c 'echo $$ > p2; exec rm -rf victim' & wait; echo waited > marker; exec sleep 600`
	setup := func(t *testing.T) (g *Gate, state, dir string, rig *sharedRig, kill func()) {
		rig = newSharedRig()
		g, state, joined := sharedGate(t, rig)
		dir = t.TempDir()
		os.WriteFile(filepath.Join(dir, "victim"), []byte("keep me\n"), 0o644)
		_, _, kill = startGated(t, g, dir, two)
		t.Cleanup(kill)
		within(t, rig.asked, "the prompt")
		within(t, joined, "the second exec to join the prompt")
		return g, state, dir, rig, kill
	}
	killPid := func(t *testing.T, dir, name string) {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var pid int
		fmt.Sscan(string(raw), &pid)
		if pid <= 1 {
			t.Fatalf("%s holds %q", name, raw)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill %s: %v", name, err)
		}
	}

	t.Run("one of two died", func(t *testing.T) {
		_, state, dir, rig, _ := setup(t)
		killPid(t, dir, "p1")
		// Give the prompt's watch a few rounds to see the dead exec; the
		// answer must still reach the other one.
		<-time.After(3 * watchInterval)
		rig.answer <- AllowOnce
		waitForFile(t, filepath.Join(dir, "marker"))
		if _, err := os.Stat(filepath.Join(dir, "victim")); err == nil {
			t.Errorf("the surviving exec did not run after allow")
		}
		if got := strings.Join(rmEntries(t, state, 2), " "); got != "allow/user allow/user/shared" {
			t.Errorf("audit for rm = %q", got)
		}
		if n := rig.prompts.Load(); n != 1 {
			t.Errorf("prompts = %d, want 1", n)
		}
	})
	t.Run("both died", func(t *testing.T) {
		_, state, dir, rig, _ := setup(t)
		killPid(t, dir, "p1")
		killPid(t, dir, "p2")
		if cause := within(t, rig.ended, "the prompt to be withdrawn"); !errors.Is(cause, errGone) {
			t.Errorf("the prompt ended with %v, want %v", cause, errGone)
		}
		waitForFile(t, filepath.Join(dir, "marker"))
		if got := strings.Join(rmEntries(t, state, 2), " "); got != "deny/gone deny/gone/shared" {
			t.Errorf("audit for rm = %q, want both execs gone", got)
		}
		promptsLeft(t)
		if _, err := os.Stat(filepath.Join(dir, "victim")); err != nil {
			t.Errorf("the victim was removed")
		}
	})
}

// TestSharedPromptTimesOut: the approval timeout ends a shared prompt as it
// ends a single one, denying every exec waiting for it.
func TestSharedPromptTimesOut(t *testing.T) {
	joined := make(chan int, 8)
	var prompts atomic.Int32
	approver := approverFunc(func(ctx context.Context, a Approval) (Answer, error) {
		prompts.Add(1)
		// Not before the second exec joined: the timeout must end both.
		receive(t, joined, "the second exec to join the prompt")
		<-ctx.Done()
		return DenyOnce, ErrApprovalTimeout
	})
	rules := `[{"program":"rm","argsAny":["-*r*"],"decision":"ask"}]`
	g, state := testGate(t, rules, approver)
	if err := g.Configure("enforce", json.RawMessage(rules), 300); err != nil {
		t.Fatal(err)
	}
	g.onJoin = func(n int) { joined <- n }
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me\n"), 0o644)
	res := runGated(t, g, dir, `rm -rf victim & rm -rf victim & wait`)
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the victim was removed without an answer")
	}
	if n := strings.Count(res.task.text(), "nobody answered the approval in time"); n != 2 {
		t.Errorf("timeout denial lines = %d, want 2; notes %q", n, res.task.text())
	}
	if got := strings.Join(rmEntries(t, state, 2), " "); got != "deny/timeout deny/timeout/shared" {
		t.Errorf("audit for rm = %q", got)
	}
	if n := prompts.Load(); n != 1 {
		t.Errorf("prompts = %d, want 1", n)
	}
}

// TestCacheAnswersRepeatsOnly: an exec repeated with the same program file,
// paths, folder and arguments is answered from the task's cache (one audit
// entry for two execs), while the same file run by another name is judged
// again: a rule may match the name it was run by.
func TestCacheAnswersRepeatsOnly(t *testing.T) {
	g, state := testGate(t, `[{"program":"rm","decision":"deny"}]`, nil)
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me\n"), 0o644)
	// /usr/bin/true under the name rm (a symlink: the same file, another
	// name), with the same argv, argv[0] included, as the allowed runs
	// before it.
	res := runGated(t, g, dir, `mkdir bin && ln -s /usr/bin/true bin/rm && /usr/bin/true victim && /usr/bin/true victim && (exec -a /usr/bin/true ./bin/rm victim); echo rc=$?`)
	if !strings.Contains(res.out, "rc=126") || !strings.Contains(res.task.text(), "whale: policy denied") {
		t.Errorf("true run as ./bin/rm after true was allowed: output %q, notes %q; want it denied by the rm rule (rc=126)", res.out, res.task.text())
	}
	n := 0
	for _, e := range readAudit(t, state) {
		if e.Program == "/usr/bin/true" && e.Decision == "allow" && slices.Equal(e.Argv, []string{"/usr/bin/true", "victim"}) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("audit entries for the two identical execs of true = %d, want 1 (the second from the cache); audit %+v", n, readAudit(t, state))
	}
}

// TestCacheForgetsOnNewRules: a decision cached under one rule set does not
// answer once the rules changed while the task runs.
func TestCacheForgetsOnNewRules(t *testing.T) {
	g, _ := testGate(t, `[]`, nil)
	dir := t.TempDir()
	r := launchGated(t, g, dir, `/usr/bin/true && echo first; while [ ! -e go ]; do sleep 0.02; done; /usr/bin/true && echo second`)
	cmd, out, task, stop, done := r.cmd, r.out, r.task, r.stop, r.done
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "first") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the first true did not run; output %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := g.Configure("enforce", json.RawMessage(`[{"program":"true","decision":"deny"}]`), 0); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the task did not finish; output %q", out.String())
	}
	if stop != nil {
		stop()
	}
	if strings.Contains(out.String(), "second") || !strings.Contains(task.text(), "whale: policy denied") {
		t.Errorf("true ran again after a rule denied it: output %q, notes %q", out.String(), task.text())
	}
}

// TestImageCheckKillsAnotherImage: the check after an allowed exec kills
// the task when the process runs another file than the one decided, and
// leaves it alone when it runs that file.
func TestImageCheckKillsAnotherImage(t *testing.T) {
	sleepID, err := identityOf("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	trueID, err := identityOf("/usr/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		final [2]uint64
		kill  bool
	}{{"the image decided", sleepID, false}, {"another image", trueID, true}, {"an image where the path named none", [2]uint64{}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, _ := startSleep(t)
			pid := cmd.Process.Pid
			task := &fakeTask{id: "t1"}
			tg := &taskGate{g: NewGate(Options{}), task: task, session: pid}
			ex := &execRequest{tid: pid, prog: Program{Path: "/usr/bin/true"}, file: -1}
			tg.checks = []imageCheck{{ex: ex, tgid: pid, gen: tg.gen(pid), prev: [2]uint64{1, 1}, final: tc.final, delay: firstCheckDelay}}
			if next := tg.runChecks(time.Now(), false); !next.IsZero() || len(tg.checks) != 0 {
				t.Errorf("after the image changed: next check %v, %d pending; want none", next, len(tg.checks))
			}
			exited := make(chan struct{})
			go func() { cmd.Process.Wait(); close(exited) }()
			select {
			case <-exited:
				if !tc.kill {
					t.Errorf("the process was killed although it runs the image decided; notes %q", task.text())
				}
			case <-time.After(300 * time.Millisecond):
				if tc.kill {
					t.Errorf("the process runs on with another image than the one decided; notes %q", task.text())
				}
			}
			if tc.kill && !strings.Contains(task.text(), "the task was killed") {
				t.Errorf("no note of the kill: %q", task.text())
			}
		})
	}
}

// TestImageCheckEarly: a check not due yet is settled early when the
// process already runs the image decided, and left as it was while the
// process still runs the image it ran before the exec.
func TestImageCheckEarly(t *testing.T) {
	cmd, sleepID := startSleep(t)
	pid := cmd.Process.Pid
	task := &fakeTask{id: "t1"}
	tg := &taskGate{g: NewGate(Options{}), task: task, session: pid}
	ex := &execRequest{tid: pid, file: -1}
	due := time.Now().Add(time.Hour)
	tg.checks = []imageCheck{
		{ex: ex, tgid: pid, gen: tg.gen(pid), prev: sleepID, final: [2]uint64{1, 1}, due: due, delay: firstCheckDelay},
		{ex: ex, tgid: pid, gen: tg.gen(pid), prev: [2]uint64{1, 1}, final: sleepID, due: due, delay: firstCheckDelay},
	}
	if next := tg.runChecks(time.Now(), false); !next.Equal(due) || len(tg.checks) != 2 {
		t.Fatalf("checks not due were run: next %v, %d pending", next, len(tg.checks))
	}
	next := tg.runChecks(time.Now(), true)
	if len(tg.checks) != 1 || tg.checks[0].final != [2]uint64{1, 1} || tg.checks[0].tries != 0 || !next.Equal(due) {
		t.Errorf("early look: %+v pending, next %v; want only the check whose exec has not happened, untouched", tg.checks, next)
	}
	if task.text() != "" {
		t.Errorf("an early look killed: %q", task.text())
	}
}

// TestAllowSchedulesCheck: an allowed exec of a process that cannot race it
// is checked after the exec where the image decided differs from the one
// the process runs before it, with that one as prev, and where the path
// named no executable (the kernel fails it, unless the task puts a program
// there first); not where they are the same.
func TestAllowSchedulesCheck(t *testing.T) {
	cmd, sleepID := startSleep(t)
	pid := cmd.Process.Pid
	trueID, err := identityOf("/usr/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		final [2]uint64
		check bool
	}{{"another image", trueID, true}, {"the same image", sleepID, false}, {"no executable", [2]uint64{}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			// No listener: the answer goes nowhere.
			tg := &taskGate{g: NewGate(Options{}), task: &fakeTask{id: "t1"}, session: pid, listener: -1}
			ex := &execRequest{tid: pid, st: procStatus{tgid: pid, threads: 1}, file: -1}
			tg.allow(1, ex, tc.final, true)
			switch {
			case !tc.check && len(tg.checks) != 0:
				t.Errorf("allow(final %v) scheduled %+v, want no check", tc.final, tg.checks)
			case tc.check && (len(tg.checks) != 1 || tg.checks[0].prev != sleepID || tg.checks[0].final != tc.final):
				t.Errorf("allow(final %v) scheduled %+v, want one check from %v", tc.final, tg.checks, sleepID)
			}
		})
	}
}

// startSleep starts /bin/sleep in a session of its own, killed when the
// test ends, and returns it once it runs that file (sleepID).
func startSleep(t *testing.T) (cmd *exec.Cmd, sleepID [2]uint64) {
	t.Helper()
	sleepID, err := identityOf("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("/bin/sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitForExe(t, cmd.Process.Pid, sleepID)
	return cmd, sleepID
}

// waitForExe waits until process pid runs the file id.
func waitForExe(t *testing.T, pid int, id [2]uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if now, err := identityOf(procPath(pid, "exe")); err == nil && now == id {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d does not run the expected file", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

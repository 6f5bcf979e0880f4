package terminal

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/shellcmd"
)

// long is the generous deadline for conditions on a loaded machine.
const long = 3 * time.Minute

type recordingSink struct {
	mu     sync.Mutex
	opened map[string]TaskInfo
	data   map[string]*strings.Builder
	seqs   map[string][]int64
	exits  map[string][2]string
	order  []string // event kinds per task, "open", "output", "exit"
	errs   []string
}

func newRecordingSink() *recordingSink {
	return &recordingSink{opened: map[string]TaskInfo{}, data: map[string]*strings.Builder{}, seqs: map[string][]int64{}, exits: map[string][2]string{}}
}

func (s *recordingSink) Open(info TaskInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.opened[info.ID]; dup {
		s.errs = append(s.errs, "open twice "+info.ID)
	}
	s.opened[info.ID] = info
	s.data[info.ID] = &strings.Builder{}
	s.order = append(s.order, info.ID+":open")
}

func (s *recordingSink) Output(id string, seq int64, data string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.opened[id]; !ok {
		s.errs = append(s.errs, "output before open "+id)
	}
	if _, ok := s.exits[id]; ok {
		s.errs = append(s.errs, "output after exit "+id)
	}
	if n := len(s.seqs[id]); n > 0 && s.seqs[id][n-1] >= seq {
		s.errs = append(s.errs, fmt.Sprintf("seq %d after %d", seq, s.seqs[id][n-1]))
	}
	s.seqs[id] = append(s.seqs[id], seq)
	s.data[id].WriteString(data)
	s.order = append(s.order, id+":output")
}

func (s *recordingSink) Exit(id string, code int, sig string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exits[id] = [2]string{strconv.Itoa(code), sig}
	s.order = append(s.order, id+":exit")
}

func (s *recordingSink) text(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.data[id]; b != nil {
		return b.String()
	}
	return ""
}

func (s *recordingSink) exited(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.exits[id]
	return ok
}

func newTable(t *testing.T, o Options) *Table {
	t.Helper()
	tb := NewTable(o)
	t.Cleanup(func() { _ = tb.Close() })
	return tb
}

func start(t *testing.T, tb *Table, o StartOptions) *Task {
	t.Helper()
	needMode(t, o.Mode)
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	task, err := tb.Start(o)
	if err != nil {
		t.Fatalf("Start(%q): %v", o.Command, err)
	}
	return task
}

func waitDone(t *testing.T, task *Task) {
	t.Helper()
	if !task.Wait(context.Background(), long) {
		t.Fatalf("%s (%q) did not finish; output so far:\n%s", task.ID(), task.info.Command, task.tail(4096))
	}
}

// eventually polls cond until it holds or the generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(long)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readUntil reads model output until it contains want.
func readUntil(t *testing.T, task *Task, want string) string {
	t.Helper()
	var all strings.Builder
	eventually(t, fmt.Sprintf("%q in the output of %s", want, task.ID()), func() bool {
		all.WriteString(task.ReadOutput())
		return strings.Contains(all.String(), want)
	})
	return all.String()
}

func TestTTYInPTYAndPipeModes(t *testing.T) {
	tb := newTable(t, Options{})
	for _, tc := range []struct {
		mode Mode
		want string
	}{
		{ModePTY, "/dev/pts/"},
		{ModePipe, "not a tty"},
	} {
		task := start(t, tb, StartOptions{Command: "tty", Mode: tc.mode})
		waitDone(t, task)
		if out := task.ReadOutput(); !strings.Contains(out, tc.want) {
			t.Errorf("tty in mode %s printed %q, want it to contain %q", tc.mode, out, tc.want)
		}
		if got := task.Info().PTY; got != (tc.mode == ModePTY) {
			t.Errorf("mode %s: Info().PTY = %v", tc.mode, got)
		}
	}
}

func TestExitCodeAndAutoMode(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: "echo out; echo err >&2; exit 3"})
	waitDone(t, task)
	st := task.Status()
	if st.ExitCode != 3 || st.State != "exited" || st.PTY {
		t.Errorf("Status() = %+v, want exited with code 3 over a pipe", st)
	}
	out := task.ReadOutput()
	if out != "out\nerr\n" {
		t.Errorf("output = %q, want %q", out, "out\nerr\n")
	}
	if d := task.Diagnose(); d.Reason != ReasonExited {
		t.Errorf("Diagnose() = %+v, want exited", d)
	}
	if again := task.ReadOutput(); again != "" {
		t.Errorf("second ReadOutput() = %q, want nothing new", again)
	}
}

func TestReadPromptAnsweredWithStdin(t *testing.T) {
	tb := newTable(t, Options{})
	for _, mode := range []Mode{ModePTY, ModePipe} {
		task := start(t, tb, StartOptions{Command: `read -p "Your name: " name; echo "hello, $name"`, Mode: mode})
		eventually(t, "a waiting_for_input diagnosis", func() bool {
			return task.Diagnose().Reason == ReasonWaitingForInput
		})
		if err := task.Send("whale", []string{"enter"}); err != nil {
			t.Fatalf("Send: %v", err)
		}
		waitDone(t, task)
		if out := readUntil(t, task, "hello, whale"); !strings.Contains(out, "hello, whale") {
			t.Errorf("mode %s: output %q lacks the greeting", mode, out)
		}
	}
}

func TestHiddenPromptIsPasswordPrompt(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: `read -s -p "Token please: " tok; echo; echo "got ${#tok} chars"`, Mode: ModePTY})
	eventually(t, "a password_prompt diagnosis", func() bool {
		return task.Diagnose().Reason == ReasonPasswordPrompt
	})
	if d := task.Diagnose(); !strings.Contains(d.Hint, "write_stdin") || !strings.Contains(d.Hint, "user") {
		t.Errorf("hint %q should tell to ask the user and use write_stdin", d.Hint)
	}
	if err := task.Send("s3cret", []string{"enter"}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	out := readUntil(t, task, "got 6 chars")
	if strings.Contains(out, "s3cret") {
		t.Errorf("the secret was echoed: %q", out)
	}
}

func TestSudoLikeSecretFromTextOnly(t *testing.T) {
	// A program that prints a password prompt and reads with echo on is
	// still recognised by its last line.
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: `printf "Password: "; read x`, Mode: ModePipe})
	eventually(t, "password_prompt", func() bool { return task.Diagnose().Reason == ReasonPasswordPrompt })
}

func TestPythonREPLInPTY(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: "python3 -q"})
	if !task.Info().PTY {
		t.Fatalf("auto mode chose a pipe for a REPL")
	}
	readUntil(t, task, ">>> ")
	eventually(t, "the REPL to wait for input", func() bool { return task.Diagnose().Reason == ReasonWaitingForInput })
	if err := task.Send("print(6*7)", []string{"enter"}); err != nil {
		t.Fatal(err)
	}
	readUntil(t, task, "42")
	// Send ctrl-d only once the REPL reads again: readline sets its
	// terminal modes with TCSAFLUSH, which drops input typed before.
	eventually(t, "the REPL to wait for input again", func() bool { return task.Diagnose().Reason == ReasonWaitingForInput })
	if err := task.Send("", []string{"ctrl-d"}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	if st := task.Status(); st.ExitCode != 0 {
		t.Errorf("python exit code %d, want 0", st.ExitCode)
	}
}

func TestYieldThenWaitToCompletion(t *testing.T) {
	tb := newTable(t, Options{})
	dir := t.TempDir()
	flag := dir + "/go"
	task := start(t, tb, StartOptions{Command: "echo started; while [ ! -e " + flag + " ]; do sleep 0.05; done; echo finished", Dir: dir})
	if task.Wait(context.Background(), 200*time.Millisecond) {
		t.Fatalf("task finished before its flag existed")
	}
	if d := task.Diagnose(); d.Reason != ReasonYieldTimeout {
		t.Errorf("Diagnose() = %+v, want yield_timeout", d)
	}
	readUntil(t, task, "started")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	out := readUntil(t, task, "finished")
	if strings.Contains(out, "started") {
		t.Errorf("output after the first read repeats old output: %q", out)
	}
}

func TestNetworkFailureDiagnosed(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: `echo "curl: (6) Could not resolve host: example.invalid"; sleep 1000`})
	readUntil(t, task, "resolve")
	if d := task.Diagnose(); d.Reason != ReasonNetworkBlocked {
		t.Errorf("Diagnose() = %+v, want network_blocked", d)
	}
}

func TestLongRunningDiagnosed(t *testing.T) {
	tb := newTable(t, Options{})
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/log", []byte("line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	task := start(t, tb, StartOptions{Command: "tail -f log", Dir: dir})
	if !task.Kind().LongRunning {
		t.Fatalf("tail -f is not classified long-running")
	}
	readUntil(t, task, "line")
	if d := task.Diagnose(); d.Reason != ReasonLongRunning {
		t.Errorf("Diagnose() = %+v, want long_running", d)
	}
}

func TestPromptFromDevTTY(t *testing.T) {
	tb := newTable(t, Options{})
	task := start(t, tb, StartOptions{Command: `printf 'Are you sure (yes/no)? '; read a < /dev/tty; echo "said $a"`, Mode: ModePTY})
	eventually(t, "waiting_for_input", func() bool { return task.Diagnose().Reason == ReasonWaitingForInput })
	if err := task.Send("yes", []string{"enter"}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	readUntil(t, task, "said yes")
}

func TestBusyTaskIsNotAPrompt(t *testing.T) {
	tb := newTable(t, Options{})
	// The last line looks like a question, but nothing reads input.
	task := start(t, tb, StartOptions{Command: `printf 'Compiling step 3 of 9:'; sleep 1000`, Mode: ModePipe})
	readUntil(t, task, "Compiling")
	if d := task.Diagnose(); d.Reason != ReasonYieldTimeout {
		t.Errorf("Diagnose() = %+v, want yield_timeout", d)
	}
}

// TestStartUsesTheCallersParse: a task classifies its command with the
// parse it is handed (so that shell_run parses once) and gives the gate
// that parse, unless it is a parse of another text.
func TestStartUsesTheCallersParse(t *testing.T) {
	tb := newTable(t, Options{})
	parsed := shellcmd.ParseLine("echo one")
	task := start(t, tb, StartOptions{Command: "  echo one  ", Parsed: parsed, Mode: ModePipe})
	waitDone(t, task)
	if task.Parsed() != parsed {
		t.Errorf("Parsed() = %p, want the caller's parse %p", task.Parsed(), parsed)
	}
	other := start(t, tb, StartOptions{Command: "echo two", Parsed: parsed, Mode: ModePipe})
	waitDone(t, other)
	if p := other.Parsed(); p == parsed || p.Text != "echo two" || p.Err != nil {
		t.Errorf("a parse of another text was used: Parsed() = %+v", p)
	}
}

package terminal

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/shellcmd"
)

// Gate starts a task's shell process in place of cmd.Start; the exec
// boundary implements it to check every program the task executes. It is
// optional: without one, the Table calls cmd.Start itself.
type Gate interface {
	// Start starts cmd, which is fully prepared: program and arguments (the
	// shell, or the task supervisor followed by the shell), Dir,
	// Env, Stdin/Stdout/Stderr, and a SysProcAttr that gives the task its own
	// session. Start may change how the program is reached (run a helper that
	// execs the shell, append ExtraFiles, rewrite Path and Args) but must keep
	// the standard streams, the ExtraFiles already set (fd 3 of a supervised
	// task is the supervisor's status pipe) and the session attributes, and
	// must leave cmd started so that cmd.Wait reports the exit of the task's
	// first process. An error means the command must not run; its text
	// reaches the model. stop, when not nil, is called once after that
	// process has exited (for a supervised task: after the last process of
	// the task, since the supervisor outlives the shell).
	Start(cmd *exec.Cmd, task GateTask) (stop func(), err error)
}

// GateTask is what a Gate may do to the task it starts.
type GateTask interface {
	// ID is the task's id ("t1").
	ID() string
	// Note appends one line to the task's output, for the model and the
	// editor (for example a policy denial).
	Note(line string)
	// Hold pauses the task's foreground yield timer until release is
	// called, for example while the user is asked to approve an exec.
	Hold() (release func())
	// Command is the task's command line as the model gave it (the gate
	// parses it where it cannot watch the execs themselves).
	Command() string
	// Confinement is the sandbox the gate's helper applies before the
	// shell runs (sandbox.Policy.Spec); empty when the task is not
	// confined.
	Confinement() string
	// Parsed is Command's one parse (shellcmd.Line), for a gate that
	// reads the command line instead of parsing it again.
	Parsed() *shellcmd.Line
	// Annotation is the task's slot for what the gate learns about it
	// (Task.Annotation).
	Annotation(key any, init func() any) any
}

// Task is one shell command and its process tree. Its methods are safe for
// concurrent use.
type Task struct {
	// annotations are what other layers record about the task while it
	// lives (Annotation).
	annotations sync.Map
	info        TaskInfo
	// parsed is the parse of info.Command the task was classified with.
	parsed *shellcmd.Line
	kind   CommandKind
	cmd    *exec.Cmd
	pid    int // also the task's session and process group id
	// supervised: pid is the task supervisor, not the shell.
	supervised bool
	// shellStatus is the read end of the pipe on which the supervisor
	// reports the shell's exit (closed once read); nil when the exit of pid
	// is the shell's.
	shellStatus *os.File
	waitErr     error    // cmd.Wait's error, set before procDone is closed
	out         *os.File // PTY master or the read end of the output pipe
	master      *os.File // PTY master; nil in pipe mode
	//lint:ignore U1000 used on Windows only (pty_windows.go).
	console  *ptyConsole // the task's pseudoconsole where a PTY is one (Windows); nil elsewhere
	inputID  string      // what the shell's fd 0 is, as /proc/PID/fd shows it
	started  time.Time
	procDone chan struct{} // closed when cmd.Wait returned: pid was reaped
	exited   chan struct{} // closed when the shell's exit is final and output drained
	readDone chan struct{} // closed when the output reached its end
	received atomic.Int64  // raw bytes read so far
	// announcedAt is 1 + received when a wait for input was last
	// announced (AnnounceWait); 0 before any.
	announcedAt atomic.Int64
	gateStop    func()
	confinement string // sandbox.Policy.Spec of StartOptions.Sandbox; empty: none

	// inMu serialises writes to the process's input.
	inMu  sync.Mutex
	stdin *os.File // pipe mode: write end of the shell's stdin; nil once closed

	mu sync.Mutex
	// stream is nil without a Sink; it is set once after the start, before
	// the reader runs, so the reader and waitLoop use it without the lock.
	stream      *stream
	early       []byte // notes written before stream existed
	filter      textFilter
	cursor      int64 // model read offset in filter.out
	shownGen    int64 // partial line shown at the last read
	shownLen    int
	lastRead    time.Time
	readAfter   bool // the model read the output after the exit
	changed     chan struct{}
	holds       int
	holdChanged chan struct{}
	done        bool
	exitCode    int
	signal      string
	canceled    bool
	endedAt     time.Time
	filesClosed bool
	// noSurvivors: the shell exited and no process of the task was left
	// (final: a tree with no live member other than the supervisor gains
	// none).
	noSurvivors bool
}

// ID returns the task's id.
func (t *Task) ID() string { return t.info.ID }

// Command returns the task's command line.
func (t *Task) Command() string { return t.info.Command }

// Confinement is the sandbox policy of the task in the helper's form
// (GateTask); empty when it is not confined.
func (t *Task) Confinement() string { return t.confinement }

// Info returns the task's terminal description.
func (t *Task) Info() TaskInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.info
}

// Kind returns how the command was classified.
func (t *Task) Kind() CommandKind { return t.kind }

// Running reports whether the task has not finished yet.
func (t *Task) Running() bool {
	select {
	case <-t.exited:
		return false
	default:
		return true
	}
}

// Done is closed when the task finished: its process exited and the output
// it wrote before was read.
func (t *Task) Done() <-chan struct{} { return t.exited }

// Status returns a snapshot of the task.
func (t *Task) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := Status{TaskInfo: t.info, State: StateRunning, LongRunning: t.kind.LongRunning, Canceled: t.canceled}
	end := time.Now()
	if t.done {
		st.State = StateExited
		st.ExitCode, st.Signal = t.exitCode, t.signal
		end = t.endedAt
	}
	st.ElapsedMs = end.Sub(t.started).Milliseconds()
	if t.done {
		st.Survivors = t.survivorsLocked()
	}
	return st
}

// Survivors lists the processes the task started that still run after its
// shell exited (see Status.Survivors); nil while the shell runs.
func (t *Task) Survivors() []Process {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		return nil
	}
	return t.survivorsLocked()
}

// survivorsLocked scans /proc for the task's tree without its supervisor.
// Called with t.mu held, after the shell's exit. An empty answer is final,
// and remembered, only once the task's first process was reaped: a scan can
// miss a process that forked and lost its parent while the scan ran, and a
// supervisor stays as long as anything it adopted lives.
func (t *Task) survivorsLocked() []Process {
	if t.noSurvivors {
		return nil
	}
	var out []Process
	for _, p := range t.tree() {
		if p.pid == t.pid {
			continue // the supervisor, which stays as long as they do
		}
		if c := commandLine(p.pid); c != "" {
			out = append(out, Process{PID: p.pid, Command: shorten(c, 120)})
		}
	}
	if len(out) == 0 && t.leaderGone() {
		t.noSurvivors = true
	}
	return out
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Parsed returns the parse of the task's command line.
func (t *Task) Parsed() *shellcmd.Line { return t.parsed }

// Annotation returns the value recorded about the task under key, first
// storing init() when there is none and init is not nil; nil when there is
// none and init is nil. It is the slot where the layers above keep what
// they learn about a task while it lives (the exec gate's events, the
// journal's note), so that the record goes with the task. As with context
// values, each user declares its own unexported key type.
func (t *Task) Annotation(key any, init func() any) any {
	if v, ok := t.annotations.Load(key); ok || init == nil {
		return v
	}
	v, _ := t.annotations.LoadOrStore(key, init())
	return v
}

package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/sandbox"
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
}

// Task is one shell command and its process tree. Its methods are safe for
// concurrent use.
type Task struct {
	info TaskInfo
	kind CommandKind
	cmd  *exec.Cmd
	pid  int // also the task's session and process group id
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
	console     *ptyConsole // the task's pseudoconsole where a PTY is one (Windows); nil elsewhere
	inputID     string      // what the shell's fd 0 is, as /proc/PID/fd shows it
	started     time.Time
	procDone    chan struct{} // closed when cmd.Wait returned: pid was reaped
	exited      chan struct{} // closed when the shell's exit is final and output drained
	readDone    chan struct{} // closed when the output reached its end
	received    atomic.Int64  // raw bytes read so far
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

// starter runs process starts on one locked OS thread that lives as long as
// the process, so that the kernel's parent-death signal fires only when the
// whole server dies.
var starter struct {
	once sync.Once
	ch   chan func()
}

func onStarterThread(f func()) {
	starter.once.Do(func() {
		starter.ch = make(chan func())
		go func() {
			runtime.LockOSThread()
			for f := range starter.ch {
				f()
			}
		}()
	})
	done := make(chan struct{})
	starter.ch <- func() { defer close(done); f() }
	<-done
}

// startTask starts o.Command in a new Task with id: in s.Shell, under the
// supervisor command when it is given and useful on this platform, on a PTY
// or pipes, through o.Gate when set; its output goes to sink when not nil.
func startTask(id string, o StartOptions, s Settings, sink Sink, supervisor []string) (*Task, error) {
	command := strings.TrimSpace(o.Command)
	if command == "" {
		return nil, errors.New("empty command")
	}
	if limit := maxCommandBytes(); limit > 0 && len(command) > limit {
		return nil, &CommandTooLongError{Bytes: len(command), Limit: limit}
	}
	t := newTask(id, command, o, s)
	if !supervisorUseful {
		supervisor = nil
	}
	cmd, childEnds, err := t.processCommand(o, s.Shell, supervisor)
	if err != nil {
		return nil, err
	}
	if t.info.PTY && !ptySupported {
		t.info.PTY = false
		t.Note("whale: " + ptyUnsupportedNote)
	}
	if t.info.PTY {
		childEnds, err = t.connectPTY(cmd, childEnds)
	} else {
		childEnds, err = t.connectPipes(cmd, childEnds)
	}
	if err != nil {
		return nil, err
	}

	startErr := t.launch(cmd, o.Gate)
	closeEach(childEnds...)
	if startErr != nil {
		closeEach(t.out, t.stdin, t.shellStatus)
		if errors.Is(startErr, syscall.E2BIG) {
			return nil, &CommandTooLongError{Bytes: len(command)}
		}
		if errors.Is(startErr, ErrGate) {
			return nil, startErr
		}
		return nil, fmt.Errorf("start %s: %w", s.Shell, startErr)
	}
	t.cmd = cmd
	t.pid = cmd.Process.Pid
	t.supervised = len(supervisor) > 0
	if sink != nil {
		t.attachStream(sink)
	}
	go t.readLoop()
	go t.waitLoop()
	return t, nil
}

// newTask is the Task of command before anything is started: its
// classification, whether it asks for a PTY (ModePTY, or ModeAuto and an
// interactive command), its size and title with their defaults, and its
// output buffer.
func newTask(id, command string, o StartOptions, s Settings) *Task {
	kind := Classify(command)
	usePTY := o.Mode == ModePTY || ((o.Mode == ModeAuto || o.Mode == "") && kind.Interactive)
	cols, rows := o.Cols, o.Rows
	if cols <= 0 {
		cols = defaultCols
	}
	if rows <= 0 {
		rows = defaultRows
	}
	title := o.Title
	if title == "" {
		title = shorten(command, 60)
	}
	t := &Task{
		info:        TaskInfo{ID: id, Title: title, Command: command, Dir: o.Dir, PTY: usePTY, Cols: cols, Rows: rows},
		kind:        kind,
		started:     time.Now(),
		procDone:    make(chan struct{}),
		exited:      make(chan struct{}),
		readDone:    make(chan struct{}),
		changed:     make(chan struct{}),
		holdChanged: make(chan struct{}),
	}
	t.filter.out = newRing(s.OutputLimitBytes)
	return t
}

// processCommand prepares the process of t's command in shell: wrapped in
// the task supervisor when there is one (reporting the shell's exit on fd 3,
// whose read end becomes t.shellStatus, where the platform does that), in
// o.Dir, with the server's environment plus o.Env (and TERM when a PTY was
// asked for), in a session of its own. childEnds are the files only the
// child keeps; the caller closes them once it has started.
func (t *Task) processCommand(o StartOptions, shell string, supervisor []string) (cmd *exec.Cmd, childEnds []*os.File, err error) {
	cmd = shellCommand(shell, t.info.Command)
	if len(supervisor) > 0 {
		args := append([]string(nil), supervisor[1:]...)
		var status *os.File
		if statusReports {
			// The supervisor reports the shell's exit on fd 3 and stays
			// while processes the task started live.
			r, w, err := os.Pipe()
			if err != nil {
				return nil, nil, fmt.Errorf("make the status pipe: %w", err)
			}
			t.shellStatus, status = r, w
			childEnds = append(childEnds, w)
			args = append(args, "--status-fd", "3")
		}
		cmd = exec.Command(supervisor[0], append(append(args, "--"), cmd.Args...)...)
		if status != nil {
			cmd.ExtraFiles = []*os.File{status}
		}
	}
	cmd.Dir = o.Dir
	env := os.Environ()
	if t.info.PTY {
		env = append(env, "TERM=xterm-256color")
	}
	cmd.Env = append(env, o.Env...)
	attr := newProcAttr(cmd.SysProcAttr)
	setPlatformAttrs(attr, len(supervisor) > 0)
	if o.Sandbox != nil && o.Sandbox.Active() {
		sandbox.SetProcAttr(attr, *o.Sandbox)
		t.confinement = o.Sandbox.Spec()
	}
	cmd.SysProcAttr = attr
	return cmd, childEnds, nil
}

// connectPipes gives cmd an input pipe and one output pipe for both stdout
// and stderr; t writes the one and reads the other. It returns childEnds
// with the child's ends added; on failure it closes childEnds, what it
// opened and t.shellStatus.
func (t *Task) connectPipes(cmd *exec.Cmd, childEnds []*os.File) ([]*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		closeEach(append(childEnds, t.shellStatus)...)
		return nil, fmt.Errorf("make the output pipe: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		closeEach(append(childEnds, r, w, t.shellStatus)...)
		return nil, fmt.Errorf("make the input pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, w, w
	t.out = r
	t.stdin = inW
	t.inputID = fileIdentity(inR)
	return append(childEnds, inR, w), nil
}

// launch starts cmd on the starter thread, through gate when there is one
// (its refusals wrap ErrGate), and runs the platform's after-start step,
// killing and reaping the process when that fails.
func (t *Task) launch(cmd *exec.Cmd, gate Gate) error {
	var startErr error
	onStarterThread(func() { startErr = t.start(cmd, gate) })
	if startErr == nil {
		if err := afterStart(cmd); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			startErr = err
		}
	}
	return startErr
}

// startCmd starts cmd through gate when there is one (its refusals wrap
// ErrGate), else with cmd.Start.
func (t *Task) startCmd(cmd *exec.Cmd, gate Gate) error {
	if gate == nil {
		if t.confinement != "" {
			return fmt.Errorf("%w: a sandboxed task needs the exec gate's helper, and there is none", ErrGate)
		}
		return cmd.Start()
	}
	var err error
	t.gateStop, err = gate.Start(cmd, t)
	if err == nil && cmd.Process == nil {
		err = errors.New("the gate did not start the process")
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrGate, err)
	}
	return nil
}

// attachStream connects t's output to sink, passing on the notes written
// before it existed. It runs once, before the reader starts.
func (t *Task) attachStream(sink Sink) {
	st := newStream(sink, t.info)
	t.mu.Lock()
	t.stream = st
	early := t.early
	t.early = nil
	t.mu.Unlock()
	st.write(early)
}

// closeEach closes every file that is not nil, ignoring errors.
func closeEach(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}

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
	st := Status{TaskInfo: t.info, State: "running", LongRunning: t.kind.LongRunning, Canceled: t.canceled}
	end := time.Now()
	if t.done {
		st.State = "exited"
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

// Wait waits until the task finished, d passed, or ctx ended, and reports
// whether it finished. Time spent while a Gate holds the task does not count
// against d.
func (t *Task) Wait(ctx context.Context, d time.Duration) bool {
	remaining := d
	for {
		t.mu.Lock()
		held := t.holds > 0
		holdChanged := t.holdChanged
		t.mu.Unlock()
		if held {
			select {
			case <-t.exited:
				return true
			case <-ctx.Done():
				return !t.Running()
			case <-holdChanged:
				continue
			}
		}
		if remaining <= 0 {
			return !t.Running()
		}
		begin := time.Now()
		timer := time.NewTimer(remaining)
		select {
		case <-t.exited:
			timer.Stop()
			return true
		case <-ctx.Done():
			timer.Stop()
			return !t.Running()
		case <-timer.C:
			return !t.Running()
		case <-holdChanged:
			timer.Stop()
			remaining -= time.Since(begin)
		}
	}
}

// WaitQuiet waits, up to d, until the task finished or output arrived and
// then stayed quiet for quiet. It is what follows a write to the task.
func (t *Task) WaitQuiet(ctx context.Context, d, quiet time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	seen := false
	for {
		t.mu.Lock()
		changed := t.changed
		t.mu.Unlock()
		q := time.NewTimer(quiet)
		select {
		case <-t.exited:
			q.Stop()
			return
		case <-ctx.Done():
			q.Stop()
			return
		case <-deadline.C:
			q.Stop()
			return
		case <-changed:
			q.Stop()
			seen = true
		case <-q.C:
			if seen {
				return
			}
		}
	}
}

// ReadOutput returns the model text produced since the model last read this
// task, compacted to its head and tail when long, with a marker when the
// buffer limit dropped older output.
func (t *Task) ReadOutput() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, lost := t.filter.out.since(t.cursor)
	t.cursor = t.filter.out.end
	part := t.filter.partial()
	newPartial := len(part) > 0 && (len(raw) > 0 || t.filter.lineGen != t.shownGen || len(part) != t.shownLen)
	t.shownGen, t.shownLen = t.filter.lineGen, len(part)
	t.lastRead = time.Now()
	if t.done {
		t.readAfter = true
	}
	var b strings.Builder
	if lost > 0 {
		fmt.Fprintf(&b, "[%d bytes of earlier output were dropped: the task keeps only its last %d bytes]\n", lost, t.filter.out.limit)
	}
	b.WriteString(validText(raw))
	if newPartial {
		b.WriteString(validText(part))
	}
	return compactText(b.String(), modelHead, modelTail)
}

// tail returns about the last n bytes of model text, the unterminated line
// included.
func (t *Task) tail(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, _ := t.filter.out.since(t.filter.out.end - int64(n))
	return validText(raw) + validText(t.filter.partial())
}

// ErrStdinClosed is returned when writing to a pipe task whose input was
// closed with ctrl-d.
var ErrStdinClosed = errors.New("the task's input was closed with ctrl-d")

// WriteRaw writes bytes to the task's terminal or input pipe unchanged, as
// typed in the editor.
func (t *Task) WriteRaw(p []byte) error {
	if !t.Running() {
		return fmt.Errorf("%w: %s has exited", ErrNotRunning, t.info.ID)
	}
	t.inMu.Lock()
	defer t.inMu.Unlock()
	f := t.master
	if f == nil {
		f = t.stdin
	}
	if f == nil {
		return ErrStdinClosed
	}
	_ = f.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := f.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("the task does not read its input (write timed out): %w", err)
	}
	return err
}

// Send writes text and named keys (see KeyNames) to the task. In pipe mode
// "enter" is a newline, "ctrl-c" sends SIGINT to the task's process group and
// "ctrl-d" closes its input; in PTY mode keys are the bytes a terminal sends.
func (t *Task) Send(input string, keys []string) error {
	var buf []byte
	buf = append(buf, input...)
	for _, k := range keys {
		if t.master == nil {
			switch normKey(k) {
			case "ctrl-c":
				if err := t.flush(&buf); err != nil {
					return err
				}
				interruptGroup(t.pid)
				continue
			case "ctrl-d":
				if err := t.flush(&buf); err != nil {
					return err
				}
				t.inMu.Lock()
				if t.stdin != nil {
					_ = t.stdin.Close()
					t.stdin = nil
				}
				t.inMu.Unlock()
				continue
			}
		}
		seq, err := keyBytes(k, t.master != nil)
		if err != nil {
			return err
		}
		buf = append(buf, seq...)
	}
	return t.flush(&buf)
}

func (t *Task) flush(buf *[]byte) error {
	if len(*buf) == 0 {
		return nil
	}
	err := t.WriteRaw(*buf)
	*buf = (*buf)[:0]
	return err
}

// Resize sets the PTY size; pipe tasks ignore it.
func (t *Task) Resize(cols, rows int) error {
	if t.master == nil || cols <= 0 || rows <= 0 {
		return nil
	}
	t.mu.Lock()
	t.info.Cols, t.info.Rows = cols, rows
	t.mu.Unlock()
	return t.resizePTY(cols, rows)
}

// Note appends a line to the task's output for the model and the editor.
func (t *Task) Note(line string) {
	line = strings.TrimRight(line, "\r\n") + "\r\n"
	t.mu.Lock()
	t.filter.write([]byte(line))
	close(t.changed)
	t.changed = make(chan struct{})
	st := t.stream
	if st == nil {
		// Before the stream exists (a Gate noting while it starts the
		// process): keep the line for the editor until it does.
		t.early = append(t.early, line...)
	}
	t.mu.Unlock()
	if st != nil {
		st.write([]byte(line))
	}
}

// Hold pauses the foreground yield timer until release is called.
func (t *Task) Hold() (release func()) {
	t.mu.Lock()
	t.holds++
	close(t.holdChanged)
	t.holdChanged = make(chan struct{})
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.holds--
			close(t.holdChanged)
			t.holdChanged = make(chan struct{})
			t.mu.Unlock()
		})
	}
}

// CancelReport says how a task was stopped.
type CancelReport struct {
	// AlreadyExited is true when nothing was running any more.
	AlreadyExited bool `json:"already_exited,omitempty"`
	// Took is the last signal that was needed: SIGINT, SIGTERM or SIGKILL.
	Took string `json:"took,omitempty"`
	// Ended lists, when the task's shell had already exited, the processes
	// it had left running that this cancel ended.
	Ended []Process `json:"ended,omitempty"`
	// Unkillable counts processes still alive after SIGKILL (normally 0).
	Unkillable int `json:"unkillable"`
}

// Grace periods of Cancel after SIGINT, after SIGTERM and after SIGKILL.
var cancelGrace = [3]time.Duration{2 * time.Second, 2 * time.Second, 5 * time.Second}

// Cancel sends SIGINT, then SIGTERM, then SIGKILL to every process group
// and process of the task's tree, waiting a short grace period after each
// until no process of the tree is left, and reports what it took. The tree
// is every process that descends from the task's first process by the PPid
// links in /proc, whatever its session or group, plus the members of the
// task's session. For a task whose shell had exited it ends the survivors
// (and reports them in Ended).
func (t *Task) Cancel() CancelReport {
	if !t.aliveTree() {
		return CancelReport{AlreadyExited: true}
	}
	t.markCanceled()
	rep := CancelReport{Ended: t.Survivors()}
	for i, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		rep.Took = signalName(sig)
		t.signalTree(sig)
		deadline := time.Now().Add(cancelGrace[i])
		for time.Now().Before(deadline) {
			if !t.aliveTree() {
				reapOrphans(map[int]bool{t.pid: true})
				return rep
			}
			if sig == syscall.SIGKILL {
				t.signalTree(sig)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	rep.Unkillable = len(t.tree())
	return rep
}

// aliveTree reports whether the shell or any process of its tree is alive.
func (t *Task) aliveTree() bool {
	select {
	case <-t.procDone:
		return len(t.tree()) > 0
	default:
		return true
	}
}

// leaderGone reports whether the task's first process has been reaped.
func (t *Task) leaderGone() bool {
	select {
	case <-t.procDone:
		return true
	default:
		return false
	}
}

// tree lists the live processes of the task.
func (t *Task) tree() []procInfo { return treeOf(t.pid, t.leaderGone()) }

// signalTree signals every process of the task.
func (t *Task) signalTree(sig syscall.Signal) int { return signalTree(t.pid, t.leaderGone(), sig) }

func (t *Task) markCanceled() {
	t.mu.Lock()
	if !t.done {
		t.canceled = true
	}
	t.mu.Unlock()
}

// kill ends the task's tree at once (SIGKILL).
func (t *Task) kill() {
	for i := 0; i < 100 && t.aliveTree(); i++ {
		t.signalTree(syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
}

func (t *Task) closeFiles() {
	t.mu.Lock()
	if t.filesClosed {
		t.mu.Unlock()
		return
	}
	t.filesClosed = true
	t.mu.Unlock()
	_ = t.out.Close()
	t.inMu.Lock()
	if t.stdin != nil {
		_ = t.stdin.Close()
		t.stdin = nil
	}
	t.inMu.Unlock()
}

// releasable reports whether an exited task may be released: its output
// was read long enough ago (or never, for much longer), and no process it
// started still runs — survivors keep the task listed and cancellable.
func (t *Task) releasable(now time.Time, after time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		return false
	}
	old := now.Sub(t.endedAt) >= 6*after
	if t.readAfter {
		old = now.Sub(t.lastRead) >= after
	}
	if !old || (t.shellStatus != nil && !t.leaderGone()) {
		return false // a reporting supervisor lives while survivors do
	}
	return len(t.survivorsLocked()) == 0
}

// release ends what is left of an exited task: a supervisor on its way out,
// zombies, and its output file.
func (t *Task) release() {
	t.kill()
	reapOrphans(map[int]bool{t.pid: true})
	t.closeFiles()
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

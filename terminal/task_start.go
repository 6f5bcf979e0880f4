package terminal

// This file starts a task: its process, its pipes or PTY, the gate.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/shellcmd"
)

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

// StartProcess starts cmd from the locked OS thread that task starts
// share, which lives as long as the process. A parent-death signal set on
// cmd (SysProcAttr.Pdeathsig) then fires when the whole process dies, and
// not when the Go thread that happened to fork it exits — which Go does to
// any thread a goroutine leaves locked, as the exec gate's do.
func StartProcess(cmd *exec.Cmd) error {
	var err error
	onStarterThread(func() { err = cmd.Start() })
	return err
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
	parsed := shellcmd.Of(o.Parsed, command)
	kind := ClassifyLine(parsed)
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
		parsed:      parsed,
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

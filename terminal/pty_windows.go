package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/conpty"
	"golang.org/x/sys/windows"
)

// ptyConsole is a PTY task's pseudoconsole (ConPTY, Windows 10 1809 and
// later). Task.out and Task.master are duplicates of its output-read and
// input-write pipe ends, so that the Task's files and the console close
// independently.
//
// Named keys need no table of their own: ConPTY parses the same VT input a
// terminal sends (CR for enter, DEL for backspace, CSI and SS3 sequences for
// arrows, home/end, insert/delete, page keys and F1-F12, C0 controls for
// ctrl-a … ctrl-z), and turns ctrl-c (0x03) into CTRL_C_EVENT for the
// processes attached to it. ctrl-d is 0x04 there, not end of input: console
// programs read ctrl-z followed by enter as end of input.
type ptyConsole struct {
	pc        *conpty.ConPty
	closeOnce sync.Once
}

// connectPTY gives cmd a new pseudoconsole of t's size; t reads its output
// and writes its input. Where ConPTY is missing (Windows before 10 1809) the
// task runs over pipes and its output says so. The console's child ends are
// its own: childEnds comes back unchanged. On failure it closes childEnds
// and t.shellStatus.
func (t *Task) connectPTY(cmd *exec.Cmd, childEnds []*os.File) ([]*os.File, error) {
	pc, err := conpty.New(t.info.Cols, t.info.Rows, 0)
	if err != nil {
		t.info.PTY = false
		t.Note("whale: " + ptyUnsupportedNote + " (" + err.Error() + ")")
		return t.connectPipes(cmd, childEnds)
	}
	out, err := dupFile(pc.OutPipeReadFd(), "conpty-output")
	if err != nil {
		_ = pc.Close()
		closeEach(append(childEnds, t.shellStatus)...)
		return nil, err
	}
	in, err := dupFile(pc.InPipeWriteFd(), "conpty-input")
	if err != nil {
		_ = pc.Close()
		closeEach(append(childEnds, out, t.shellStatus)...)
		return nil, err
	}
	t.console = &ptyConsole{pc: pc}
	t.out, t.master = out, in
	return childEnds, nil
}

// dupFile is an *os.File of a duplicate of handle h.
func dupFile(h uintptr, name string) (*os.File, error) {
	self := windows.CurrentProcess()
	var d windows.Handle
	if err := windows.DuplicateHandle(self, windows.Handle(h), self, &d, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return nil, fmt.Errorf("duplicate the pseudoconsole's %s pipe: %w", name, err)
	}
	return os.NewFile(uintptr(d), name), nil
}

// consoleGate is a Gate that can check a command without starting it. A
// ConPTY task's shell is created by conpty (CreateProcess with the
// pseudoconsole attribute), which exec.Cmd.Start cannot do, so the gate
// checks and the task starts it.
type consoleGate interface {
	// Check decides, as Start would, whether cmd may run; an error means it
	// must not, and its text reaches the model.
	Check(cmd *exec.Cmd, task GateTask) error
}

// start starts cmd: a pipe task's with cmd.Start (through the gate), a PTY
// task's attached to its pseudoconsole after the gate checked it.
func (t *Task) start(cmd *exec.Cmd, gate Gate) error {
	if t.console == nil {
		return t.startCmd(cmd, gate)
	}
	if gate != nil {
		g, ok := gate.(consoleGate)
		if !ok {
			return fmt.Errorf("%w: this exec gate cannot check a ConPTY task; run the command with mode pipe", ErrGate)
		}
		if err := g.Check(cmd, t); err != nil {
			return fmt.Errorf("%w: %w", ErrGate, err)
		}
	}
	return t.spawnConsole(cmd)
}

// spawnConsole creates cmd's process attached to t's pseudoconsole,
// suspended like every task's shell (afterStart puts it into the task's Job
// object and resumes it), and makes cmd.Wait wait for it. The process gets
// no standard handles of the server's (conpty passes STARTF_USESTDHANDLES
// with none), so the console's are its only ones. Unlike a pipe task it is
// not put in a new process group: that would turn off ctrl-c for it.
func (t *Task) spawnConsole(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	sys := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		*sys = *cmd.SysProcAttr
	}
	sys.CreationFlags &^= windows.CREATE_NEW_PROCESS_GROUP
	pid, h, err := t.console.pc.Spawn(cmd.Path, cmd.Args, &syscall.ProcAttr{Dir: cmd.Dir, Env: cmd.Env, Sys: sys})
	if err != nil {
		return err
	}
	defer windows.CloseHandle(windows.Handle(h))
	p, err := os.FindProcess(pid)
	if err != nil {
		_ = windows.TerminateProcess(windows.Handle(h), 1)
		return fmt.Errorf("open the task's shell process: %w", err)
	}
	cmd.Process = p
	jobs.setConsole(pid, t.console)
	// reapLoop calls gateStop once the shell has exited: then the console
	// goes, which ends its output pipe and so the reader.
	gateStop := t.gateStop
	t.gateStop = func() {
		if gateStop != nil {
			gateStop()
		}
		t.closeConsole()
	}
	return nil
}

// Console output settles when nothing new arrived for consoleQuiet after
// the shell exited, or after consoleLimit.
const (
	consoleQuiet = 100 * time.Millisecond
	consoleLimit = 2 * time.Second
)

// closeConsole closes t's pseudoconsole and its input once the shell has
// exited and the console has drawn what it wrote (ConPTY renders output
// asynchronously; closing at once could drop the last frame).
func (t *Task) closeConsole() {
	c := t.console
	c.closeOnce.Do(func() {
		last := t.received.Load()
		for end := time.Now().Add(consoleLimit); time.Now().Before(end); {
			time.Sleep(consoleQuiet)
			now := t.received.Load()
			if now == last {
				break
			}
			last = now
		}
		_ = c.pc.Close()
		t.inMu.Lock()
		if t.master != nil {
			_ = t.master.Close()
		}
		t.inMu.Unlock()
	})
}

// interrupt types ctrl-c into the console.
func (c *ptyConsole) interrupt() { _, _ = c.pc.Write([]byte{0x03}) }

// resizePTY resizes t's pseudoconsole.
func (t *Task) resizePTY(cols, rows int) error {
	if t.console == nil {
		return nil
	}
	return t.console.pc.Resize(cols, rows)
}

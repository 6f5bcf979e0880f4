package acpfront

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/whale-ls/whale-ls/terminal"
)

// agentProcess is the real agent: a child in its own process group, whose
// standard input and output carry ACP.
type agentProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	// exited is closed once the agent's process was reaped; waitErr is
	// cmd.Wait's error, set before.
	exited  chan struct{}
	waitErr error
}

// Grace periods of stopAgent: after its input closes, and after SIGTERM.
const (
	agentInputGrace = 2 * time.Second
	agentTermGrace  = 2 * time.Second
)

// startAgent starts argv with the proxy's standard error and environment.
func startAgent(argv []string, dir string, stderr io.Writer) (*agentProcess, error) {
	if len(argv) == 0 {
		return nil, errors.New("no agent command: give it after --, e.g. whale-ls acp -- gemini --experimental-acp")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = stderr
	cmd.Env = os.Environ()
	setAgentAttrs(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// Its parent-death signal must belong to a thread that outlives it.
	if err := terminal.StartProcess(cmd); err != nil {
		return nil, fmt.Errorf("start the agent %s: %w", argv[0], err)
	}
	a := &agentProcess{cmd: cmd, stdin: stdin, stdout: stdout, exited: make(chan struct{})}
	go func() {
		a.waitErr = cmd.Wait()
		close(a.exited)
	}()
	return a, nil
}

// stop ends the agent and everything in its process group: its input is
// closed (an ACP agent exits when it ends), then the group gets SIGTERM,
// then SIGKILL. Processes the agent left in its group are stopped even
// when the agent itself has exited already.
func (a *agentProcess) stop() {
	a.stdin.Close()
	select {
	case <-a.exited:
	case <-time.After(agentInputGrace):
	}
	if signalGroup(a.cmd, false) {
		deadline := time.After(agentTermGrace)
		for groupAlive(a.cmd) {
			select {
			case <-deadline:
				signalGroup(a.cmd, true)
				<-a.exited
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	<-a.exited
}

// exitText says how the agent ended, for a person.
func (a *agentProcess) exitText() string {
	if a.waitErr == nil {
		return "the agent exited"
	}
	return "the agent exited (" + a.waitErr.Error() + ")"
}

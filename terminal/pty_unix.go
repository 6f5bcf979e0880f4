//go:build unix

package terminal

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/creack/pty"
)

// ptyConsole is empty on Unix: a PTY is its master file (Task.master).
//
//lint:ignore U1000 Task.console is used on Windows, where a PTY is a pseudoconsole.
type ptyConsole struct{}

// connectPTY gives cmd a new PTY of t's size as its controlling terminal
// and its three standard streams; t reads the master. It returns childEnds
// with the PTY's slave side added; on failure it closes childEnds, what it
// opened and t.shellStatus.
func (t *Task) connectPTY(cmd *exec.Cmd, childEnds []*os.File) ([]*os.File, error) {
	m, slave, err := pty.Open()
	if err != nil {
		closeEach(append(childEnds, t.shellStatus)...)
		return nil, fmt.Errorf("open a pty: %w", err)
	}
	master, err := pollable(m)
	if err != nil {
		closeEach(append(childEnds, m, slave, t.shellStatus)...)
		return nil, err
	}
	if err := setWinsize(master, t.info.Cols, t.info.Rows); err != nil {
		closeEach(append(childEnds, master, slave, t.shellStatus)...)
		return nil, fmt.Errorf("size the pty: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	setControllingTTY(cmd.SysProcAttr)
	t.out, t.master = master, master
	t.inputID = slave.Name()
	return append(childEnds, slave), nil
}

// start starts cmd; on Unix a PTY task's shell starts like any other.
func (t *Task) start(cmd *exec.Cmd, gate Gate) error { return t.startCmd(cmd, gate) }

// resizePTY sets the size of t's PTY through its master.
func (t *Task) resizePTY(cols, rows int) error { return setWinsize(t.master, cols, rows) }

//go:build unix

package terminal

import (
	"os"

	"golang.org/x/sys/unix"
)

// ttyModes reports the terminal's echo and canonical flags (set by the
// program on the slave side, read through the master).
func ttyModes(f *os.File) (echo, canonical, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, false, false
	}
	var t *unix.Termios
	_ = rc.Control(func(fd uintptr) { t, err = unix.IoctlGetTermios(int(fd), termiosGet) })
	if err != nil || t == nil {
		return false, false, false
	}
	return t.Lflag&unix.ECHO != 0, t.Lflag&unix.ICANON != 0, true
}

// foregroundGroup is the terminal's foreground process group.
func foregroundGroup(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	pg := 0
	_ = rc.Control(func(fd uintptr) { pg, err = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP) })
	if err != nil {
		return 0
	}
	return pg
}

// setWinsize sets the terminal size through the master.
func setWinsize(f *os.File, cols, rows int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	cerr := rc.Control(func(fd uintptr) { err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) })
	if cerr != nil {
		return cerr
	}
	return err
}

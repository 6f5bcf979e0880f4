//go:build unix && !linux

package terminal

import "golang.org/x/sys/unix"

// termiosGet is the ioctl that reads a terminal's modes.
const termiosGet = unix.TIOCGETA

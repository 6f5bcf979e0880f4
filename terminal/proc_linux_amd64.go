//go:build linux && amd64

package terminal

import "golang.org/x/sys/unix"

func init() {
	waitSyscalls[unix.SYS_POLL] = true
	waitSyscalls[unix.SYS_SELECT] = true
	waitSyscalls[unix.SYS_EPOLL_WAIT] = true
}

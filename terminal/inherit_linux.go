package terminal

import "golang.org/x/sys/unix"

func closeRangeCloexec() error { return unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) }

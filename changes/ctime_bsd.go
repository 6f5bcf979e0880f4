//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package changes

import "syscall"

func statCtime(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }

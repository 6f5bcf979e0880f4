//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package changes

import "syscall"

func statCtime(st *syscall.Stat_t) int64 { return 0 }

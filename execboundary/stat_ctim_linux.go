package execboundary

import "syscall"

func statChangeNs(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }

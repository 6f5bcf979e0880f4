//go:build linux && arm64

package execboundary

import "golang.org/x/sys/unix"

// execCalls are the exec syscalls of every ABI an arm64 process can reach:
// the native ones and the 32-bit ARM compat ones.
var execCalls = []execCall{
	{arch: unix.AUDIT_ARCH_AARCH64, nr: 221},
	{arch: unix.AUDIT_ARCH_AARCH64, nr: 281, at: true},
	{arch: unix.AUDIT_ARCH_ARM, nr: 11, ptr32: true},
	{arch: unix.AUDIT_ARCH_ARM, nr: 387, at: true, ptr32: true},
}

// fstatatCall is newfstatat(2), whose record is unix.Stat_t.
const fstatatCall = unix.SYS_NEWFSTATAT

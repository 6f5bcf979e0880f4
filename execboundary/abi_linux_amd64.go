//go:build linux && amd64

package execboundary

import "golang.org/x/sys/unix"

// x32Bit marks the x32 ABI's syscall numbers.
const x32Bit = 0x40000000

// execCalls are the exec syscalls of every ABI an x86-64 process can reach:
// the native ones, the x32 numbers (also when the kernel lacks x32, so that
// nothing depends on that) and the i386 ones reached with int 0x80.
var execCalls = []execCall{
	{arch: unix.AUDIT_ARCH_X86_64, nr: 59},
	{arch: unix.AUDIT_ARCH_X86_64, nr: 322, at: true},
	{arch: unix.AUDIT_ARCH_X86_64, nr: x32Bit | 520, ptr32: true},
	{arch: unix.AUDIT_ARCH_X86_64, nr: x32Bit | 545, at: true, ptr32: true},
	{arch: unix.AUDIT_ARCH_X86_64, nr: x32Bit | 59, ptr32: true},
	{arch: unix.AUDIT_ARCH_X86_64, nr: x32Bit | 322, at: true, ptr32: true},
	{arch: unix.AUDIT_ARCH_I386, nr: 11, ptr32: true},
	{arch: unix.AUDIT_ARCH_I386, nr: 358, at: true, ptr32: true},
}

// fstatatCall is newfstatat(2), whose record is unix.Stat_t.
const fstatatCall = unix.SYS_NEWFSTATAT

//go:build linux

package execboundary

import (
	"os"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkReadArgs reads a program path and a three-word argv the way the
// gate reads a stopped exec's, with process_vm_readv (vm) and through an
// opened /proc/PID/mem as the gate did before (mem), in the same run.
func BenchmarkReadArgs(b *testing.B) {
	path := []byte("/usr/bin/git\x00")
	words := [][]byte{[]byte("git\x00"), []byte("status\x00"), []byte("--short\x00")}
	argv := []uintptr{uintptr(unsafe.Pointer(&words[0][0])), uintptr(unsafe.Pointer(&words[1][0])), uintptr(unsafe.Pointer(&words[2][0])), 0}
	read := func(b *testing.B, mem *procMem) {
		if _, err := readCString(mem, uint64(uintptr(unsafe.Pointer(&path[0]))), maxPath); err != nil {
			b.Fatal(err)
		}
		if got, err := readArgv(mem, uint64(uintptr(unsafe.Pointer(&argv[0]))), false); err != nil || len(got) != 3 {
			b.Fatal(got, err)
		}
	}
	pid := os.Getpid()
	b.Run("vm", func(b *testing.B) {
		for b.Loop() {
			mem := newProcMem(pid)
			read(b, mem)
			mem.close()
		}
	})
	b.Run("mem", func(b *testing.B) {
		for b.Loop() {
			fd, err := unix.Open("/proc/self/mem", unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				b.Fatal(err)
			}
			mem := &procMem{pid: pid, fd: fd}
			read(b, mem)
			mem.close()
		}
	})
	runtime.KeepAlive(path)
	runtime.KeepAlive(words)
	runtime.KeepAlive(argv)
}

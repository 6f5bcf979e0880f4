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
// gate reads a stopped exec's, with process_vm_readv, the path's first bytes
// along with the arguments' (vm), the path on its own as the gate did
// before (vm-apart), and through an opened /proc/PID/mem (mem), in the same
// run.
func BenchmarkReadArgs(b *testing.B) {
	path := []byte("/usr/bin/git\x00")
	words := [][]byte{[]byte("git\x00"), []byte("status\x00"), []byte("--short\x00")}
	argv := []uintptr{uintptr(unsafe.Pointer(&words[0][0])), uintptr(unsafe.Pointer(&words[1][0])), uintptr(unsafe.Pointer(&words[2][0])), 0}
	pid := os.Getpid()
	b.Run("vm", func(b *testing.B) {
		for b.Loop() {
			mem := newProcMem(pid)
			lead := leadString{addr: uint64(uintptr(unsafe.Pointer(&path[0])))}
			if got, err := readArgv(mem, uint64(uintptr(unsafe.Pointer(&argv[0]))), false, &lead); err != nil || len(got) != 3 || !lead.ok {
				b.Fatal(got, err, lead)
			}
			mem.close()
		}
	})
	read := func(b *testing.B, mem *procMem) {
		if _, err := readCString(mem, uint64(uintptr(unsafe.Pointer(&path[0]))), maxPath); err != nil {
			b.Fatal(err)
		}
		if got, err := readArgv(mem, uint64(uintptr(unsafe.Pointer(&argv[0]))), false, nil); err != nil || len(got) != 3 {
			b.Fatal(got, err)
		}
	}
	b.Run("vm-apart", func(b *testing.B) {
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

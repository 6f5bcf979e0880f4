package probe

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Landlock reports whether the kernel's Landlock ABI is at least min, as
// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) tells.
func Landlock(min int) Result {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return absent("the kernel has no Landlock here: %v", errno)
	}
	return landlockAtLeast(int(v), min)
}

func landlockAtLeast(abi, min int) Result {
	if abi < min {
		return absent("the kernel's Landlock ABI is %d; %d is needed", abi, min)
	}
	return present("Landlock ABI %d", abi)
}

// NetNamespace reports whether this process can start a program in a new
// network namespace: directly as root, else inside a user namespace.
func NetNamespace() Result {
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if os.Geteuid() != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	return startIn(attr, "a network namespace")
}

func startIn(attr *syscall.SysProcAttr, what string) Result {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return absent("no sh to start in %s: %v", what, err)
	}
	cmd := exec.Command(sh, "-c", ":")
	cmd.SysProcAttr = attr
	if err := cmd.Run(); err != nil {
		return absent("cannot start a program in %s: %v", what, err)
	}
	return present("started a program in %s", what)
}

// PTY reports whether a pseudo-terminal pair can be opened.
func PTY() Result {
	master, tty, err := pty.Open()
	if err != nil {
		return absent("cannot open a pseudo-terminal: %v", err)
	}
	master.Close()
	tty.Close()
	return present("opened a pseudo-terminal")
}

// I386Execve returns a tiny static x86-64 program that calls the i386
// execve (int 0x80, syscall 11) on path with args, and exits with the
// syscall's result when it returns. x86-64 only.
func I386Execve(path string, args ...string) []byte {
	return i386Program(11, []byte{0xcd, 0x80}, path, args)
}

// Int80 reports whether a 64-bit program on this machine can make an i386
// system call with int 0x80: it runs I386Execve of touch on a file in dir,
// ungated, and looks for the file. Some hypervisors fault the instruction
// although the kernel has IA32 emulation; then no program can use it.
func Int80(dir string) Result {
	return runI386(dir, func(marker string) []byte { return I386Execve("/usr/bin/touch", "-f", marker) })
}

func runI386(dir string, program func(marker string) []byte) Result {
	if runtime.GOARCH != "amd64" {
		return absent("int 0x80 is an x86-64 instruction; this is %s", runtime.GOARCH)
	}
	if _, err := os.Stat("/usr/bin/touch"); err != nil {
		return absent("no /usr/bin/touch to run through int 0x80: %v", err)
	}
	marker := filepath.Join(dir, "int80-probe-marker")
	bin := filepath.Join(dir, "int80-probe")
	if err := os.WriteFile(bin, program(marker), 0o755); err != nil {
		return absent("cannot write the probe program: %v", err)
	}
	defer os.Remove(bin)
	defer os.Remove(marker)
	err := exec.Command(bin).Run()
	if _, statErr := os.Stat(marker); statErr == nil {
		return present("an i386 execve through int 0x80 ran /usr/bin/touch")
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return absent("int 0x80 does not work on this machine: the probe program died of %v (hypervisors may fault it)", ws.Signal())
		}
		return absent("int 0x80 does not work on this machine: the i386 execve returned %d", int8(exit.ExitCode()))
	}
	if err != nil {
		return absent("cannot run the probe program: %v", err)
	}
	return absent("the i386 execve through int 0x80 returned without running /usr/bin/touch")
}

// i386Program lays out an ELF that loads eax=nr, ebx=path, ecx=argv,
// edx=0, runs insn, then exits (64-bit exit) with eax as its status.
func i386Program(nr uint32, insn []byte, path string, args []string) []byte {
	const base = 0x400000
	const codeOff, dataOff = 0x78, 0x100
	le := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	strs := append([]string{path}, args...)
	var data []byte
	var ptrs []uint32
	for _, s := range strs {
		ptrs = append(ptrs, uint32(base+dataOff+len(data)))
		data = append(append(data, s...), 0)
	}
	argvOff := (dataOff + len(data) + 7) &^ 7
	var code []byte
	code = append(append(code, 0xb8), le(nr)...)                   // mov eax, nr
	code = append(append(code, 0xbb), le(ptrs[0])...)              // mov ebx, path
	code = append(append(code, 0xb9), le(uint32(base+argvOff))...) // mov ecx, argv
	code = append(code, 0x31, 0xd2)                                // xor edx, edx
	code = append(code, insn...)                                   // int 0x80 (or a stand-in)
	code = append(code, 0x89, 0xc7, 0xb8, 60, 0, 0, 0, 0x0f, 0x05) // mov edi, eax; mov eax, 60; syscall
	img := make([]byte, argvOff+4*(len(ptrs)+1))
	copy(img[codeOff:], code)
	copy(img[dataOff:], data)
	for i, p := range ptrs {
		copy(img[argvOff+4*i:], le(p))
	}
	copy(img, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0})
	binary.LittleEndian.PutUint16(img[16:], 2)    // ET_EXEC
	binary.LittleEndian.PutUint16(img[18:], 0x3e) // x86-64
	binary.LittleEndian.PutUint32(img[20:], 1)
	binary.LittleEndian.PutUint64(img[24:], base+codeOff) // entry
	binary.LittleEndian.PutUint64(img[32:], 64)           // phoff
	binary.LittleEndian.PutUint16(img[52:], 64)           // ehsize
	binary.LittleEndian.PutUint16(img[54:], 56)           // phentsize
	binary.LittleEndian.PutUint16(img[56:], 1)            // phnum
	ph := img[64:]                                        // PT_LOAD of the whole file, RWX
	binary.LittleEndian.PutUint32(ph[0:], 1)
	binary.LittleEndian.PutUint32(ph[4:], 7)
	binary.LittleEndian.PutUint64(ph[16:], base)
	binary.LittleEndian.PutUint64(ph[24:], base)
	binary.LittleEndian.PutUint64(ph[32:], uint64(len(img)))
	binary.LittleEndian.PutUint64(ph[40:], uint64(len(img)))
	binary.LittleEndian.PutUint64(ph[48:], 0x1000)
	return img
}

//go:build linux

package execboundary

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Messages on the helper's socket pair.
const (
	msgListener = "ok"  // helper → server, with the listener fd
	msgFailed   = "err" // helper → server: "err REASON"
	msgGo       = "go"  // server → helper: exec the program
	msgRun      = "run" // server → helper: exec it without the gate (best-effort)
	msgStop     = "no"  // server → helper: do not run anything
	msgConfine  = "sbx" // helper → server: "sbx REASON", the sandbox failed
)

// Exit codes of the helper when it does not exec the program.
const (
	helperRefused = 126
	helperFailed  = 127
)

// RunHelper is the body of the hidden exec-gate subcommand. Its arguments
// are "[--confine SPEC] [--no-filter] --fd N -- PATH ARGV…": it asks for
// SIGKILL when its parent dies, calls confine with SPEC (the sandbox, on
// this thread, before anything else), sets no_new_privs, installs the exec
// filter on all its threads with a new listener, sends the listener over
// the socket on fd N (SCM_RIGHTS), waits for the server's answer and then
// executes PATH with ARGV (argv[0] included) and the inherited environment.
// With --no-filter (the gate is off but the task is confined) there is no
// socket: it confines and executes PATH. With "--probe" it only tries to
// install the filter and reports the outcome in its exit code and output.
// A nil confine refuses --confine. It returns an exit code when it does not
// exec.
func RunHelper(args []string, confine Confiner) int {
	runtime.LockOSThread()
	if len(args) == 1 && args[0] == "--probe" {
		fd, err := installFilter()
		if err != nil {
			fmt.Fprintln(os.Stdout, err.Error())
			return helperRefused
		}
		unix.Close(fd)
		return 0
	}
	sock := -1
	spec, confined, noFilter := "", false, false
	for len(args) > 0 && args[0] != "--" {
		switch {
		case args[0] == "--fd" && len(args) > 1:
			n, err := strconv.Atoi(args[1])
			if err == nil {
				sock = n
			}
			args = args[1:]
		case args[0] == "--confine" && len(args) > 1:
			spec, confined = args[1], true
			args = args[1:]
		case args[0] == "--no-filter":
			noFilter = true
		}
		args = args[1:]
	}
	if noFilter && len(args) >= 3 {
		if confined {
			if err := runConfine(confine, spec); err != nil {
				fmt.Fprintf(os.Stderr, "whale-ls: %v\n", err)
				return helperRefused
			}
		}
		return execProgram(args[1], args[2:], -1)
	}
	if sock < 3 || len(args) < 3 {
		fmt.Fprintln(os.Stderr, "whale-ls exec-gate: expected --fd N -- PATH ARGV0 [ARGS…]; this subcommand is run by the server")
		return 2
	}
	path, argv := args[1], args[2:]
	syscall.CloseOnExec(sock)
	var sig int32
	if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0, 0, 0); err != nil || sig == 0 {
		_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
	}
	if os.Getppid() == 1 {
		return helperFailed // the server is already gone
	}
	if confined {
		if err := runConfine(confine, spec); err != nil {
			_ = send(sock, msgConfine+" "+err.Error(), -1)
			return helperRefused
		}
	}
	listener, err := installFilter()
	if err != nil {
		if e := send(sock, msgFailed+" "+err.Error(), -1); e != nil {
			return helperFailed
		}
		switch answer(sock) {
		case msgRun:
			return execProgram(path, argv, sock)
		}
		return helperRefused
	}
	if err := send(sock, msgListener, listener); err != nil {
		fmt.Fprintf(os.Stderr, "whale-ls exec-gate: hand the listener to the server: %v\n", err)
		return helperFailed
	}
	unix.Close(listener)
	if answer(sock) != msgGo {
		return helperRefused
	}
	return execProgram(path, argv, sock)
}

func runConfine(confine Confiner, spec string) error {
	if confine == nil {
		return errors.New("this helper cannot apply a sandbox")
	}
	if err := confine(spec); err != nil {
		return fmt.Errorf("the sandbox could not be applied: %w", err)
	}
	return nil
}

func execProgram(path string, argv []string, sock int) int {
	if sock >= 0 {
		unix.Close(sock)
	}
	err := syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "whale-ls exec-gate: cannot run %s: %v\n", path, err)
	if errors.Is(err, syscall.EPERM) {
		return helperRefused
	}
	return helperFailed
}

func send(sock int, msg string, fd int) error {
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	return unix.Sendmsg(sock, []byte(msg), oob, nil, 0)
}

func answer(sock int) string {
	buf := make([]byte, 64)
	for {
		n, _, _, _, err := unix.Recvmsg(sock, buf, nil, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return ""
		}
		return string(buf[:n])
	}
}

// filterProgram builds the BPF program: the exec calls of execCalls return
// SECCOMP_RET_USER_NOTIF, other syscalls of a known ABI are allowed, and an
// unknown ABI gets EPERM for everything.
func filterProgram() []unix.SockFilter {
	const (
		ldW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		offN = 0 // seccomp_data.nr
		offA = 4 // seccomp_data.arch
	)
	var arches []uint32
	byArch := map[uint32][]uint32{}
	for _, c := range execCalls {
		if _, ok := byArch[c.arch]; !ok {
			arches = append(arches, c.arch)
		}
		byArch[c.arch] = append(byArch[c.arch], c.nr)
	}
	type jump struct{ at int } // an instruction whose jt goes to notify
	var prog []unix.SockFilter
	var toNotify []jump
	prog = append(prog, unix.SockFilter{Code: ldW, K: offA})
	for _, a := range arches {
		nrs := byArch[a]
		// jeq arch: fall through into the block, else skip it.
		blockLen := 1 + len(nrs) + 1 // ld nr, the checks, ret allow
		prog = append(prog, unix.SockFilter{Code: jeq, K: a, Jt: 0, Jf: uint8(blockLen)})
		prog = append(prog, unix.SockFilter{Code: ldW, K: offN})
		for _, nr := range nrs {
			toNotify = append(toNotify, jump{len(prog)})
			prog = append(prog, unix.SockFilter{Code: jeq, K: nr})
		}
		prog = append(prog, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
		// The next block reloads the arch.
		prog = append(prog, unix.SockFilter{Code: ldW, K: offA})
	}
	prog = append(prog, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)})
	notify := len(prog)
	prog = append(prog, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
	for _, j := range toNotify {
		prog[j.at].Jt = uint8(notify - j.at - 1)
	}
	return prog
}

// installFilter sets no_new_privs and installs the filter on every thread
// of this process, returning the listener fd.
func installFilter() (int, error) {
	if len(execCalls) == 0 {
		return -1, fmt.Errorf("the exec gate does not know the syscalls of %s", runtime.GOARCH)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("set no_new_privs: %w", err)
	}
	prog := filterProgram()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := uintptr(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_TSYNC | unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	for {
		fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		runtime.KeepAlive(prog)
		switch {
		case errno == 0:
			return int(fd), nil
		case errno == unix.EINVAL && flags&unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV != 0:
			// Kernels before 5.19 lack the flag: signals then restart a
			// waiting exec, which only costs a second notification.
			flags &^= unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
			continue
		case errno == unix.EBUSY:
			return -1, errors.New("another seccomp listener already watches this process tree (is whale-ls running inside another gated task or sandbox?)")
		case errno == unix.EINVAL || errno == unix.ENOSYS:
			return -1, fmt.Errorf("this kernel lacks seccomp user notification (%v)", errno)
		case errno == unix.EACCES || errno == unix.EPERM:
			return -1, fmt.Errorf("installing a seccomp filter is not permitted here (%v)", errno)
		}
		return -1, fmt.Errorf("install the seccomp filter: %w", errno)
	}
}

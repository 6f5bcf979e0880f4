//go:build linux

package execboundary

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Bounds of what the gate reads from a stopped process.
const (
	maxPath     = 4096
	maxArgs     = 1024
	maxArgLen   = 4096
	maxArgTotal = 256 << 10
	maxDepth    = 4 // nested #! interpreters the kernel follows
	pageSize    = 4096
)

// execRequest is one exec as read from the stopped process.
type execRequest struct {
	tid   int
	st    procStatus
	given string
	argv  []string
	cwd   string
	// passthrough: the path does not name an executable regular file; the
	// kernel will refuse it, so no decision is made.
	passthrough bool
	prog        Program
	// file is the program's O_PATH descriptor, -1 when none is open.
	file  int
	final [2]uint64 // identity of the image the exec loads
}

func (ex *execRequest) close() {
	if ex != nil && ex.file >= 0 {
		unix.Close(ex.file)
		ex.file = -1
	}
}

// appendCacheKey appends the key of the task's decision cache to b, or
// nothing when the exec must not be cached: the program file as it is now
// (device, inode, size, mtime and ctime, so that a file replaced or
// rewritten at the same path is a new key), its real path and the path it
// was executed by (a rule may match either name), the folder (relative
// paths in a #! line or a loader's argument depend on it, and a prompt
// shows it) and every argument (argv[0] included: a multi-call program
// acts by it, and rules match arguments). The other files a decision rests
// on are checked on a hit (see dependency). The loop builds the key in a
// reused buffer and looks it up without converting it to a string.
func (ex *execRequest) appendCacheKey(b []byte) []byte {
	p := ex.prog
	if p.Ino == 0 || p.Anonymous() {
		return b
	}
	for _, n := range [...]uint64{p.Dev, p.Ino, uint64(p.Size), uint64(p.ModNs), uint64(p.ChangeNs)} {
		b = strconv.AppendUint(b, n, 16)
		b = append(b, ':')
	}
	for _, str := range [...]string{p.Path, p.Given, ex.cwd} {
		b = append(b, 0)
		b = append(b, str...)
	}
	b = append(b, 0, 0)
	for _, a := range ex.argv {
		b = append(b, 0)
		b = append(b, a...)
	}
	return b
}

// fileID identifies a file and its content's version; zero for a path the
// kernel would not execute (missing, not a regular file, not executable).
type fileID struct {
	dev, ino            uint64
	size, modNs, change int64
}

// dependency is a file besides the program that a decision rests on: a #!
// interpreter, or the program the dynamic loader is asked to load. A
// decision is reused only while each names the same, unchanged file.
type dependency struct {
	path string // as judge opened it (relative names joined to the folder)
	id   fileID
}

func idOf(p Program) fileID { return fileID{p.Dev, p.Ino, p.Size, p.ModNs, p.ChangeNs} }

// executableID is the fileID of path now, as openProgram would see it.
func executableID(path string) fileID {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
		return fileID{}
	}
	return fileID{st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano()}
}

// unchanged reports whether every dependency still names the file it named.
func unchanged(deps []dependency) bool {
	for _, d := range deps {
		if executableID(d.path) != d.id {
			return false
		}
	}
	return true
}

// depsKey is the text of deps for a map key.
func depsKey(deps []dependency) string {
	var b strings.Builder
	for _, d := range deps {
		fmt.Fprintf(&b, "\x00%s\x00%v", d.path, d.id)
	}
	return b.String()
}

// readExec reads the path, argv and working folder of a waiting exec and
// opens the file it names.
func readExec(tid int, call execCall, args [6]uint64) (*execRequest, error) {
	ex := &execRequest{tid: tid, file: -1}
	mem := procMem{pid: tid, fd: -1}
	defer mem.close()
	pathPtr, argvPtr, dirfd, flags := args[0], args[1], int64(unix.AT_FDCWD), uint64(0)
	if call.at {
		dirfd, pathPtr, argvPtr, flags = int64(int32(args[0])), args[1], args[2], args[4]
	}
	if call.ptr32 {
		pathPtr, argvPtr = pathPtr&0xffffffff, argvPtr&0xffffffff
	}
	// The path's first bytes come with the arguments' (one system call);
	// a path they do not hold whole is read on its own, and its failure
	// is reported first, as the kernel would.
	path := leadString{addr: pathPtr}
	argv, argErr := readArgv(&mem, argvPtr, call.ptr32, &path)
	var err error
	if ex.given = path.text; !path.ok {
		if ex.given, err = readCString(&mem, pathPtr, maxPath); err != nil {
			return ex, fmt.Errorf("read the program path: %w", err)
		}
	}
	if ex.argv = argv; argErr != nil {
		return ex, fmt.Errorf("read the arguments: %w", argErr)
	}
	var cwd procName
	cwd.setProc(tid, "cwd", -1)
	ex.cwd, _ = readProcLinkName(&cwd)
	var target string
	switch {
	case ex.given == "" && flags&unix.AT_EMPTY_PATH != 0:
		target = fmt.Sprintf("/proc/%d/fd/%d", tid, dirfd)
		ex.given = fmt.Sprintf("/dev/fd/%d", dirfd)
	case ex.given == "":
		ex.passthrough = true
		return ex, nil
	default:
		target = locate(tid, ex.given, dirfd)
	}
	prog, f, ok := openProgram(target, ex.given)
	if !ok {
		ex.passthrough = true
		return ex, nil
	}
	ex.prog, ex.file = prog, f
	return ex, nil
}

// locate turns a path as the process passed it into one the server can
// open: relative paths go through the process's working folder (or the
// execveat folder), and the process's own /proc/self and /dev/fd become its
// /proc/PID.
func locate(tid int, given string, dirfd int64) string {
	if !filepath.IsAbs(given) {
		base := fmt.Sprintf("/proc/%d/cwd", tid)
		if dirfd != unix.AT_FDCWD {
			base = fmt.Sprintf("/proc/%d/fd/%d", tid, dirfd)
		}
		if logical, err := os.Readlink(base); err == nil && filepath.IsAbs(logical) {
			if joined := filepath.Join(logical, given); strings.HasPrefix(joined, "/proc/") || strings.HasPrefix(joined, "/dev/fd/") {
				return selfToPid(joined, tid)
			}
		}
		return base + "/" + given
	}
	return selfToPid(given, tid)
}

func selfToPid(p string, tid int) string {
	if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/") {
		return p // most paths: nothing to build
	}
	pid := "/proc/" + strconv.Itoa(tid) + "/"
	for _, prefix := range []string{"/proc/self/", "/proc/thread-self/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			return pid + rest
		}
	}
	if rest, ok := strings.CutPrefix(p, "/dev/fd/"); ok {
		return pid + "fd/" + rest
	}
	for _, std := range []struct{ name, fd string }{{"/dev/stdin", "0"}, {"/dev/stdout", "1"}, {"/dev/stderr", "2"}} {
		if p == std.name {
			return pid + "fd/" + std.fd
		}
	}
	return p
}

// openProgram opens the file at target without side effects (O_PATH) and
// checks that it is an executable regular file; fd is that O_PATH
// descriptor, the caller's to close. ok is false when the kernel would
// refuse the exec anyway. The file is reopened for reading only when a
// decision needs its content (see judge), not for cached decisions; a raw
// descriptor, not an *os.File, since the gate opens one for every exec.
func openProgram(target, given string) (p Program, fd int, ok bool) {
	fd, err := unix.Open(target, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return Program{}, -1, false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
		unix.Close(fd)
		return Program{}, -1, false
	}
	var self procName
	self.setProc(-1, "fd/", fd)
	real, _ := readProcLinkName(&self)
	p = Program{Path: real, Given: given, Dev: st.Dev, Ino: st.Ino, Size: st.Size, ModNs: st.Mtim.Nano(), ChangeNs: st.Ctim.Nano()}
	// Valid while fd is open: the policy hashes the content during judge.
	p.open = func() (*os.File, error) { return reopen(fd) }
	return p, fd, true
}

// judge decides a program and what it makes the kernel or the loader run
// without another exec: a script's #! interpreter (the whole chain), and
// the program the dynamic loader is asked to load. final is the identity
// of the image the exec ends up with; deps are the files besides prog that
// the verdict rests on.
func judge(pol *Policy, prog Program, f int, argv []string, cwd string, depth int) (Verdict, [2]uint64, []dependency) {
	v := pol.Decide(prog, argv)
	final := [2]uint64{prog.Dev, prog.Ino}
	if prog.Anonymous() {
		v = stricter(v, Verdict{Decision: Ask, Reason: "it runs from a memfd or a deleted file, which cannot be identified"})
	}
	if f < 0 || depth >= maxDepth {
		return v, final, nil
	}
	head := make([]byte, 256)
	n := 0
	if rf, err := reopen(f); err == nil {
		n, _ = rf.ReadAt(head, 0)
		rf.Close()
	}
	head = head[:n]
	if interp, arg, ok := parseShebang(head); ok {
		target := interp
		if !filepath.IsAbs(interp) && cwd != "" {
			target = filepath.Join(cwd, interp)
		}
		iprog, ifile, ok := openProgram(target, interp)
		if !ok {
			return v, final, []dependency{{path: target}} // the kernel fails the exec
		}
		defer unix.Close(ifile)
		dep := dependency{path: target, id: idOf(iprog)}
		iargv := []string{interp}
		if arg != "" {
			iargv = append(iargv, arg)
		}
		iargv = append(iargv, prog.Given)
		if len(argv) > 1 {
			iargv = append(iargv, argv[1:]...)
		}
		iv, ifinal, ideps := judge(pol, iprog, ifile, iargv, cwd, depth+1)
		return stricter(v, iv), ifinal, append([]dependency{dep}, ideps...)
	}
	if isLoader(prog.Path) {
		name, largv := loaderTarget(argv)
		if name == "" {
			return v, final, nil
		}
		target := name
		if !filepath.IsAbs(name) && cwd != "" {
			target = filepath.Join(cwd, name)
		}
		lprog, lfile, ok := openProgram(target, name)
		if !ok {
			return stricter(v, Verdict{Decision: Ask, Reason: fmt.Sprintf("the dynamic loader was asked to load %q, which cannot be identified", name)}), final, []dependency{{path: target}}
		}
		defer unix.Close(lfile)
		lv, _, ldeps := judge(pol, lprog, lfile, largv, cwd, depth+1)
		return stricter(v, lv), final, append([]dependency{{path: target, id: idOf(lprog)}}, ldeps...)
	}
	return v, final, nil
}

// reopen opens an O_PATH descriptor for reading.
func reopen(fd int) (*os.File, error) {
	return os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), os.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
}

// parseShebang reads a "#!interpreter [arg]" line the way the kernel does:
// one optional argument, the rest of the line included.
func parseShebang(head []byte) (interp, arg string, ok bool) {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return "", "", false
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	s := strings.Trim(string(line), " \t")
	if s == "" {
		return "", "", false
	}
	interp, arg, _ = strings.Cut(s, " ")
	if i := strings.IndexByte(interp, '\t'); i >= 0 {
		interp, arg = interp[:i], interp[i+1:]+" "+arg
	}
	return interp, strings.Trim(arg, " \t"), true
}

var loaderName = regexp.MustCompile(`^(ld-linux.*\.so.*|ld-.*\.so.*|ld\.so.*|ld64\.so.*|ld-musl-.*)$`)

func isLoader(path string) bool { return loaderName.MatchString(filepath.Base(path)) }

// loaderTarget finds the program in a dynamic loader's command line
// ("ld.so [OPTIONS] PROGRAM [ARGS]") and the argv it runs with.
func loaderTarget(argv []string) (string, []string) {
	withValue := map[string]bool{"--library-path": true, "--inhibit-rpath": true, "--audit": true, "--preload": true, "--argv0": true, "--glibc-hwcaps-prepend": true, "--glibc-hwcaps-mask": true}
	argv0 := ""
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			i++
			if i < len(argv) {
				return argv[i], withArgv0(argv[i:], argv0)
			}
			return "", nil
		}
		if strings.HasPrefix(a, "--") {
			opt, val, hasVal := strings.Cut(a, "=")
			if withValue[opt] && !hasVal && i+1 < len(argv) {
				i++
				val = argv[i]
			}
			if opt == "--argv0" {
				argv0 = val
			}
			continue
		}
		return a, withArgv0(argv[i:], argv0)
	}
	return "", nil
}

func withArgv0(argv []string, argv0 string) []string {
	out := append([]string(nil), argv...)
	if argv0 != "" {
		out[0] = argv0
	}
	return out
}

// identityOf returns the device and inode of the file at path.
func identityOf(path string) ([2]uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return [2]uint64{}, err
	}
	return [2]uint64{st.Dev, st.Ino}, nil
}

// procMem reads another process's memory with process_vm_readv(2): one
// system call per read, and no file to open and close (the gate reads a few
// strings for every exec). A read that call cannot do whole (a kernel
// without it, a mapping it does not read) goes through /proc/PID/mem, opened
// on first need, which reads what the kernel's own copy of the arguments
// could; close closes it.
type procMem struct {
	pid int
	fd  int // /proc/PID/mem, -1 until a read needs it
}

func newProcMem(pid int) *procMem { return &procMem{pid: pid, fd: -1} }

// ReadAt fills p from the process's address off, or says why it could not.
func (m *procMem) ReadAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if m.fd < 0 {
		local := [1]unix.Iovec{{Base: &p[0]}}
		local[0].SetLen(len(p))
		remote := [1]unix.RemoteIovec{{Base: uintptr(off), Len: len(p)}}
		if n, err := unix.ProcessVMReadv(m.pid, local[:], remote[:], 0); err == nil && n == len(p) {
			return n, nil
		}
		fd, err := unix.Open("/proc/"+strconv.Itoa(m.pid)+"/mem", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return 0, fmt.Errorf("open the process's memory: %w", err)
		}
		m.fd = fd
	}
	n := 0
	for n < len(p) {
		k, err := unix.Pread(m.fd, p[n:], off+int64(n))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return n, err
		case k == 0:
			return n, io.EOF
		}
		n += k
	}
	return n, nil
}

func (m *procMem) close() {
	if m.fd >= 0 {
		unix.Close(m.fd)
		m.fd = -1
	}
}

// readCString reads a NUL-terminated string of at most max bytes; a longer
// one is cut and marked with "…". It takes a *procMem, not an io.ReaderAt,
// so that its buffer stays on the stack.
func readCString(mem *procMem, addr uint64, max int) (string, error) {
	if addr == 0 {
		return "", errors.New("null pointer")
	}
	var out []byte
	var page [512]byte
	for len(out) < max {
		buf := page[:min(pageSize-int(addr%pageSize), len(page))]
		n, err := mem.ReadAt(buf, int64(addr))
		if n == 0 && err != nil {
			return "", err
		}
		if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
			if out == nil {
				return string(buf[:i]), nil
			}
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf[:n]...)
		addr += uint64(n)
	}
	return string(out[:max]) + "…", nil
}

// leadString is a string read along with the arguments' first bytes (see
// readArgv): the program path, so that a short path and argv take one
// system call fewer. ok says that text holds it whole; otherwise the
// caller reads it on its own.
type leadString struct {
	addr uint64
	text string
	ok   bool
}

// readArgv reads a NULL-terminated array of string pointers. lead, when
// not nil, has the first bytes of its string read in the same system call
// as the first arguments' (nothing when there are none).
func readArgv(mem *procMem, addr uint64, ptr32 bool, lead *leadString) ([]string, error) {
	if addr == 0 {
		return nil, nil
	}
	size := uint64(8)
	if ptr32 {
		size = 4
	}
	pointer := func(b []byte) uint64 {
		if ptr32 {
			return uint64(binary.NativeEndian.Uint32(b))
		}
		return binary.NativeEndian.Uint64(b)
	}
	var argv []string
	total := 0
	// The pointers are read up to 64 at a time, never across the end of a
	// page (the next one may not be mapped); the strings' first bytes up to
	// argHeads at a time (win, heads), with one system call for all of them.
	var block [512]byte
	var ptrs []byte
	var heads [argHeads][argHead]byte
	win := make([]uint64, 0, argHeads)
	w, whole := 0, 0 // win[w] is the next string's; heads[:whole] were read
	for i := 0; ; i++ {
		if i >= maxArgs || total >= maxArgTotal {
			argv = append(argv, "…")
			return argv, nil
		}
		if len(ptrs) == 0 {
			at := addr + uint64(i)*size
			n := min(uint64(len(block)), pageSize-at%pageSize)
			n -= n % size
			if n == 0 {
				n = size // a pointer straddling pages (unaligned)
			}
			if _, err := mem.ReadAt(block[:n], int64(at)); err != nil {
				return argv, err
			}
			ptrs = block[:n]
		}
		p := pointer(ptrs)
		ptrs = ptrs[size:]
		if p == 0 {
			return argv, nil
		}
		if w == len(win) {
			// The lead's string first (in the first window only), then p
			// and the pointers after it in this block, up to the NULL.
			win = win[:0]
			first := 0
			if lead != nil && lead.addr != 0 {
				win, first = append(win, lead.addr), 1
			}
			win = append(win, p)
			for rest := ptrs; len(win) < argHeads && uint64(len(rest)) >= size; rest = rest[size:] {
				q := pointer(rest)
				if q == 0 {
					break
				}
				win = append(win, q)
			}
			whole, w = mem.readHeads(win, &heads), first
			if first == 1 && whole > 0 {
				if k := bytes.IndexByte(heads[0][:headLen(lead.addr)], 0); k >= 0 {
					lead.text, lead.ok = string(heads[0][:k]), true
				}
			}
			lead = nil
		}
		s, found := "", false
		if w < whole {
			if k := bytes.IndexByte(heads[w][:headLen(p)], 0); k >= 0 {
				s, found = string(heads[w][:k]), true
			}
		}
		w++
		if !found {
			var err error
			if s, err = readCString(mem, p, maxArgLen); err != nil {
				return argv, err
			}
		}
		total += len(s)
		argv = append(argv, s)
	}
}

// The first bytes of argHeads arguments at a time are read together
// (readHeads): most arguments end within argHead bytes.
const (
	argHeads = 16
	argHead  = 128
)

// headLen is how much of the string at addr readHeads reads: argHead
// bytes, never past the end of its page.
func headLen(addr uint64) int { return min(argHead, pageSize-int(addr%pageSize)) }

// readHeads reads the first headLen bytes at each of addrs (at most
// argHeads) into heads with one process_vm_readv, and returns how many of
// them it read whole, in order: the kernel stops at the first it cannot
// read. The caller reads the others on their own.
func (m *procMem) readHeads(addrs []uint64, heads *[argHeads][argHead]byte) int {
	if m.fd >= 0 {
		return 0 // process_vm_readv failed for this process already
	}
	var local [argHeads]unix.Iovec
	var remote [argHeads]unix.RemoteIovec
	for k, a := range addrs {
		n := headLen(a)
		local[k].Base = &heads[k][0]
		local[k].SetLen(n)
		remote[k] = unix.RemoteIovec{Base: uintptr(a), Len: n}
	}
	n, err := unix.ProcessVMReadv(m.pid, local[:len(addrs)], remote[:len(addrs)], 0)
	if err != nil {
		return 0
	}
	whole := 0
	for _, r := range remote[:len(addrs)] {
		if n < r.Len {
			break
		}
		n -= r.Len
		whole++
	}
	return whole
}

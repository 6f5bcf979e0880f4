//go:build linux

package execboundary

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestParseShebang(t *testing.T) {
	for _, tc := range []struct{ in, interp, arg string }{
		{"#!/usr/bin/rm -f\n", "/usr/bin/rm", "-f"},
		{"#! /usr/bin/env  python3 -u\nx", "/usr/bin/env", "python3 -u"},
		{"#!/bin/sh", "/bin/sh", ""},
	} {
		i, a, ok := parseShebang([]byte(tc.in))
		if !ok || i != tc.interp || a != tc.arg {
			t.Errorf("parseShebang(%q) = %q, %q, %v; want %q, %q", tc.in, i, a, ok, tc.interp, tc.arg)
		}
	}
}

func TestLoaderTarget(t *testing.T) {
	for _, tc := range []struct{ argv, prog, rest string }{
		{"ld.so /usr/bin/rm -f x", "/usr/bin/rm", "/usr/bin/rm -f x"},
		{"ld.so --library-path /l --argv0 rm /usr/bin/rm -f", "/usr/bin/rm", "rm -f"},
		{"ld.so --list /bin/ls", "/bin/ls", "/bin/ls"},
		{"ld.so --version", "", ""},
	} {
		p, rest := loaderTarget(strings.Fields(tc.argv))
		if p != tc.prog || strings.Join(rest, " ") != tc.rest {
			t.Errorf("loaderTarget(%q) = %q, %q; want %q, %q", tc.argv, p, rest, tc.prog, tc.rest)
		}
	}
	if !isLoader("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2") || isLoader("/usr/bin/ld") {
		t.Error("isLoader misjudges the loader or the linker")
	}
}

// TestProcReaders: the plain-syscall readers the gate uses on every exec
// read what os.ReadFile and the process's own memory hold.
func TestProcReaders(t *testing.T) {
	var buf [4096]byte
	raw, err := readProc("/proc/self/status", buf[:])
	if err != nil || !bytes.Contains(raw, []byte("\nTgid:\t"+strconv.Itoa(os.Getpid())+"\n")) {
		t.Errorf("readProc(/proc/self/status) = %q, %v; want this process's Tgid", raw, err)
	}
	if st := readStatus(os.Getpid()); st.tgid != os.Getpid() || st.threads < 1 {
		t.Errorf("readStatus = %+v, want this process", st)
	}
	if small, err := readProc("/proc/self/status", buf[:8]); err != nil || len(small) != 8 {
		t.Errorf("readProc into 8 bytes = %q, %v; want the first 8 bytes", small, err)
	}

	wd, _ := os.Getwd()
	if got, err := readProcLink("/proc/" + strconv.Itoa(os.Getpid()) + "/cwd"); err != nil || got != wd {
		t.Errorf("readProcLink(cwd) = %q, %v; want %q", got, err, wd)
	}
	deep := t.TempDir() + "/" + strings.Repeat("d", 200) + "/" + strings.Repeat("e", 200) + "/" + strings.Repeat("f", 200)
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.Open(deep)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if got, err := readProcLink("/proc/self/fd/" + strconv.Itoa(int(dir.Fd()))); err != nil || got != deep {
		t.Errorf("readProcLink of a %d-byte path = %q, %v; want it whole", len(deep), got, err)
	}
	if _, err := readProcLink("/proc/self/fd/999999"); err == nil {
		t.Error("readProcLink of a missing descriptor succeeded")
	}

	mem := newProcMem(os.Getpid())
	defer mem.close()
	text := []byte("whale\x00after")
	argv := []uintptr{uintptr(unsafe.Pointer(&text[0])), uintptr(unsafe.Pointer(&text[0])), 0}
	got, err := readArgv(mem, uint64(uintptr(unsafe.Pointer(&argv[0]))), false, nil)
	if err != nil || len(got) != 2 || got[0] != "whale" || got[1] != "whale" {
		t.Errorf("readArgv through procMem = %q, %v; want [whale whale]", got, err)
	}
	runtime.KeepAlive(text)
	runtime.KeepAlive(argv)
	if mem.fd >= 0 {
		t.Error("procMem opened /proc/PID/mem for readable memory")
	}
	if _, err := newProcMem(os.Getpid()).ReadAt(make([]byte, 8), 0); err == nil {
		t.Error("reading address 0 succeeded")
	}
}

// TestProcMemFallsBack: memory that process_vm_readv does not read (a page
// without read permission) is read through /proc/PID/mem, as before it.
func TestProcMemFallsBack(t *testing.T) {
	page, err := unix.Mmap(-1, 0, pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(page)
	copy(page, "hidden\x00")
	if err := unix.Mprotect(page, unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	mem := newProcMem(os.Getpid())
	defer mem.close()
	got, err := readCString(mem, uint64(uintptr(unsafe.Pointer(&page[0]))), maxPath)
	if err != nil || got != "hidden" {
		t.Errorf("readCString of a PROT_NONE page = %q, %v; want hidden", got, err)
	}
	if mem.fd < 0 {
		t.Error("procMem did not fall back to /proc/PID/mem")
	}
}

// TestReadArgvBatches: readArgv reads the strings' first bytes together,
// and reads on their own the strings that are longer, that cross a page's
// end, and those after one the batch could not read; the result is the
// argv either way.
func TestReadArgvBatches(t *testing.T) {
	pages, err := unix.Mmap(-1, 0, 3*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(pages)
	at := func(off int, s string) uintptr {
		copy(pages[off:], s+"\x00")
		return uintptr(unsafe.Pointer(&pages[off]))
	}
	var want []string
	var argv []uintptr
	add := func(p uintptr, s string) { argv, want = append(argv, p), append(want, s) }
	for i := range 20 {
		s := strings.Repeat("a", i) + strconv.Itoa(i)
		add(at(i*40, s), s)
	}
	long := strings.Repeat("x", 3*argHead)
	add(at(900, long), long)
	add(at(pageSize-3, "crossing"), "crossing") // cut by the page's end
	add(at(2*pageSize+8, "hidden"), "hidden")   // PROT_NONE below: the batch stops here
	for i := range 20 {
		s := "after" + strconv.Itoa(i)
		add(at(pageSize+100+i*16, s), s)
	}
	add(at(pageSize+800, ""), "")
	argv = append(argv, 0)
	if err := unix.Mprotect(pages[2*pageSize:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	mem := newProcMem(os.Getpid())
	defer mem.close()
	got, err := readArgv(mem, uint64(uintptr(unsafe.Pointer(&argv[0]))), false, nil)
	runtime.KeepAlive(argv)
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("readArgv = %q, %v;\nwant %q", got, err, want)
	}
}

// TestProcNames: the /proc paths the gate builds for every exec are built
// on the stack, and the readers and exeIdentity that take them read what
// the usual calls do, without allocating.
func TestProcNames(t *testing.T) {
	for _, tc := range []struct {
		pid  int
		name string
		num  int
		want string
	}{
		{123, "status", -1, "/proc/123/status"},
		{4194304, "exe", -1, "/proc/4194304/exe"},
		{-1, "fd/", 7, "/proc/self/fd/7"},
		{5, "fd/", 0, "/proc/5/fd/0"},
	} {
		var n procName
		if ok := n.setProc(tc.pid, tc.name, tc.num); !ok || n.String() != tc.want {
			t.Errorf("setProc(%d, %q, %d) = %q, %v; want %q", tc.pid, tc.name, tc.num, n.String(), ok, tc.want)
		}
	}
	var n procName
	if n.setProc(1, strings.Repeat("x", 60), -1) {
		t.Errorf("setProc of a 60-byte name = %q, want false", n.String())
	}
	if n.setProc(1, "a\x00b", -1) {
		t.Error("setProc of a name with a NUL succeeded")
	}

	pid := os.Getpid()
	want, err := identityOf("/proc/self/exe")
	if got, gerr := exeIdentity(pid); err != nil || gerr != nil || got != want {
		t.Errorf("exeIdentity(self) = %v, %v; want %v, %v", got, gerr, want, err)
	}
	if _, err := exeIdentity(1 << 30); err == nil {
		t.Error("exeIdentity of a pid that cannot exist succeeded")
	}
	var cwd procName
	cwd.setProc(pid, "cwd", -1)
	if got, err := readProcLinkName(&cwd); err != nil || got != mustGetwd(t) {
		t.Errorf("readProcLinkName(%s) = %q, %v; want %q", cwd.String(), got, err, mustGetwd(t))
	}
	for _, tc := range []struct {
		what string
		f    func()
	}{
		{"exeIdentity", func() { _, _ = exeIdentity(pid) }},
		{"readStatus", func() { _ = readStatus(pid) }},
		{"selfToPid of a usual path", func() { _ = selfToPid("/usr/bin/true", pid) }},
	} {
		if n := testing.AllocsPerRun(20, tc.f); n != 0 {
			t.Errorf("%s allocates %v times, want 0", tc.what, n)
		}
	}
}

// TestSelfToPid: the process's own names for itself become its /proc/PID.
func TestSelfToPid(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/proc/self/fd/3", "/proc/42/fd/3"},
		{"/proc/thread-self/exe", "/proc/42/exe"},
		{"/dev/fd/5", "/proc/42/fd/5"},
		{"/dev/stdin", "/proc/42/fd/0"},
		{"/dev/stderr", "/proc/42/fd/2"},
		{"/dev/null", "/dev/null"},
		{"/proc/1/exe", "/proc/1/exe"},
		{"/usr/bin/true", "/usr/bin/true"},
		{"/devfoo/fd/1", "/devfoo/fd/1"},
	} {
		if got := selfToPid(tc.in, 42); got != tc.want {
			t.Errorf("selfToPid(%q, 42) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestReadArgvLead: the program path is read with the arguments' first
// bytes when they hold it whole; a long one, an unreadable one and one
// without arguments to go along are left to the caller, and the arguments
// are the same either way.
func TestReadArgvLead(t *testing.T) {
	pages, err := unix.Mmap(-1, 0, 2*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(pages)
	at := func(off int, s string) uint64 {
		copy(pages[off:], s+"\x00")
		return uint64(uintptr(unsafe.Pointer(&pages[off])))
	}
	long := "/" + strings.Repeat("l", 2*argHead)
	short, longAt, hidden := at(0, "/usr/bin/true"), at(100, long), at(pageSize+8, "/hidden")
	words := []uintptr{uintptr(at(600, "true")), uintptr(at(700, "-x")), 0}
	if err := unix.Mprotect(pages[pageSize:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	none := []uintptr{0}
	mem := newProcMem(os.Getpid())
	defer mem.close()
	for _, tc := range []struct {
		name string
		lead uint64
		argv []uintptr
		want string
		ok   bool
	}{
		{"short path", short, words, "/usr/bin/true", true},
		{"long path", longAt, words, "", false},
		{"unreadable path", hidden, words, "", false},
		{"no arguments", short, none, "", false},
	} {
		lead := leadString{addr: tc.lead}
		got, err := readArgv(mem, uint64(uintptr(unsafe.Pointer(&tc.argv[0]))), false, &lead)
		wantArgv := "true|-x"
		if len(tc.argv) == 1 {
			wantArgv = ""
		}
		if err != nil || strings.Join(got, "|") != wantArgv || lead.ok != tc.ok || lead.text != tc.want {
			t.Errorf("%s: readArgv = %q, %v, lead %q, %v; want %q, lead %q, %v", tc.name, got, err, lead.text, lead.ok, wantArgv, tc.want, tc.ok)
		}
	}
	runtime.KeepAlive(words)
	runtime.KeepAlive(none)
}

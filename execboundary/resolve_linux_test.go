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

	fd, err := unix.Open("/proc/self/mem", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("cannot open /proc/self/mem: %v", err)
	}
	defer unix.Close(fd)
	text := []byte("whale\x00after")
	argv := []uintptr{uintptr(unsafe.Pointer(&text[0])), uintptr(unsafe.Pointer(&text[0])), 0}
	got, err := readArgv(procMem(fd), uint64(uintptr(unsafe.Pointer(&argv[0]))), false)
	if err != nil || len(got) != 2 || got[0] != "whale" || got[1] != "whale" {
		t.Errorf("readArgv through procMem = %q, %v; want [whale whale]", got, err)
	}
	runtime.KeepAlive(text)
	runtime.KeepAlive(argv)
	if _, err := procMem(fd).ReadAt(make([]byte, 8), 0); err == nil {
		t.Error("reading address 0 succeeded")
	}
}

//go:build linux

package execboundary

import (
	"strings"
	"testing"
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

package probe

import (
	"runtime"
	"strings"
	"testing"
)

func TestLandlockForcedAbsent(t *testing.T) {
	if r := landlockAtLeast(2, 3); r.Present {
		t.Errorf("landlockAtLeast(2, 3) = %+v, want absent", r)
	}
	if r := landlockAtLeast(7, 3); !r.Present {
		t.Errorf("landlockAtLeast(7, 3) = %+v, want present", r)
	}
}

// TestInt80ForcedAbsent runs the probe with programs that cannot make the
// call — one faults where int 0x80 would be (as on machines whose
// hypervisor faults it), one asks for a system call that does not exist
// (as a kernel without IA32 emulation answers) — and with the real one.
func TestInt80ForcedAbsent(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("int 0x80 is an x86-64 instruction")
	}
	real := Int80(t.TempDir())
	for _, tc := range []struct {
		name    string
		program func(marker string) []byte
		want    string
		needs   bool // the case needs int 0x80 to work for its own answer
	}{
		{"ud2 in place of int 0x80", func(m string) []byte {
			return i386Program(11, []byte{0x0f, 0x0b}, "/usr/bin/touch", []string{"-f", m})
		}, "died of", false},
		{"no such i386 system call", func(m string) []byte {
			return i386Program(0xffff, []byte{0xcd, 0x80}, "/usr/bin/touch", []string{"-f", m})
		}, "returned -38", true},
		{"execve of a missing program", func(m string) []byte {
			return I386Execve("/no/such/touch", "-f", m)
		}, "returned -2", true},
	} {
		if tc.needs && !real.Present {
			t.Logf("%s: skipped, int 0x80 is absent here (%s)", tc.name, real.Reason)
			continue
		}
		r := runI386(t.TempDir(), tc.program)
		if r.Present || !strings.Contains(r.Reason, tc.want) {
			t.Errorf("%s: runI386 = %+v, want absent with %q", tc.name, r, tc.want)
		}
	}
}

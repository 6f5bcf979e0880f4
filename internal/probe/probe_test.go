package probe

import (
	"os"
	"path/filepath"
	"testing"
)

// Each probe is run once as it is, and again where the property is forced
// absent: a probe that says "present" where it is not would make a test
// fail on a machine that cannot hold, or pass one that does not.

func TestProbesRun(t *testing.T) {
	for name, r := range map[string]Result{
		"Root":             Root(),
		"SeccompUserNotif": SeccompUserNotif(),
		"Landlock(1)":      Landlock(1),
		"NetNamespace":     NetNamespace(),
		"PTY":              PTY(),
		"Int80":            Int80(t.TempDir()),
	} {
		if r.Reason == "" {
			t.Errorf("%s = %+v: no reason given", name, r)
		}
		t.Logf("%s: present=%v (%s)", name, r.Present, r.Reason)
	}
}

func TestSeccompForcedAbsent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	withNotif := write("with", "kill_process kill_thread trap errno user_notif trace log allow\n")
	without := write("without", "kill_process kill_thread trap errno trace log allow\n")
	free := write("free", "Name:\tx\nSeccomp:\t0\nSeccomp_filters:\t0\n")
	filtered := write("filtered", "Name:\tx\nSeccomp:\t2\nSeccomp_filters:\t1\n")
	for _, tc := range []struct {
		actions, status string
		want            bool
	}{
		{withNotif, free, true},
		{without, free, false},
		{withNotif, filtered, false},
		{filepath.Join(dir, "missing"), free, false},
	} {
		if r := seccompUserNotif(tc.actions, tc.status); r.Present != tc.want {
			t.Errorf("seccompUserNotif(%s, %s) = %+v, want present=%v", filepath.Base(tc.actions), filepath.Base(tc.status), r, tc.want)
		}
	}
}

//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExplainFindsRefusedPaths: the messages of shells, coreutils, Python,
// Go and npm name the refused path; paths inside the allowed folders, and
// messages without a path, are not refusals of the sandbox.
func TestExplainFindsRefusedPaths(t *testing.T) {
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{ws, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Mode: WorkspaceWrite, Network: NetOn, Writable: []Root{{Path: ws, Why: "workspace"}}}
	for _, tc := range []struct{ output, want string }{
		{"/bin/bash: line 1: " + out + "/a: Permission denied", out + "/a"},
		{"bash: line 1: ../out/b: Permission denied", out + "/b"},
		{"cp: cannot create regular file '" + out + "/c': Permission denied", out + "/c"},
		{"touch: cannot touch '" + out + "/d': Permission denied", out + "/d"},
		{"mkdir: cannot create directory ‘" + out + "/e’: Permission denied", out + "/e"},
		{"PermissionError: [Errno 13] Permission denied: '" + out + "/f'", out + "/f"},
		{"open " + out + "/g: permission denied", out + "/g"},
		{"ln: failed to create hard link 'hard' => '" + out + "/h': Invalid cross-device link", out + "/h"},
		{"npm ERR! Error: EACCES: permission denied, mkdir '" + out + "/i'", out + "/i"},
		{"/bin/bash: line 1: " + ws + "/inside: Permission denied", ""},
		{"sudo: a password is required; Permission denied", ""},
		{"all fine", ""},
	} {
		var got []string
		for _, r := range p.Explain(tc.output, ws) {
			got = append(got, r.Path)
		}
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("Explain(%q) = %q, want %q", tc.output, got, want)
		}
	}
	net := Policy{Mode: Off, Network: NetOff}
	if r := net.Explain("dial tcp 10.0.0.1:443: connect: network is unreachable", ws); len(r) != 1 || r[0].Address != "10.0.0.1:443" {
		t.Errorf("Explain of an unreachable network = %+v, want the address 10.0.0.1:443", r)
	}
	if r := (Policy{Mode: Off, Network: NetOn}).Explain("connect: network is unreachable", ws); len(r) != 0 {
		t.Errorf("with the network on, Explain = %+v, want nothing (not the sandbox's doing)", r)
	}
}

// TestPlanRoots: workspace-write lists the workspace, the temp folders and
// the extra roots; read-only leaves the workspace out; missing extra roots
// are skipped and said; bad values are errors.
func TestPlanRoots(t *testing.T) {
	base := t.TempDir()
	ws, tmp, extra := filepath.Join(base, "ws"), base, filepath.Join(base, "nope")
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"", []string{ws, tmp}},
		{"workspace-write", []string{ws, tmp}},
		{"read-only", []string{tmp}},
		{"off", nil},
	} {
		p, err := Plan(Options{Mode: tc.mode, Workspace: []string{ws, "relative"}, Temp: []string{tmp}, Extra: []string{extra}, NoCaches: true, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range p.Writable {
			got = append(got, r.Path)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Plan(mode %q) writable = %q, want %q", tc.mode, got, tc.want)
		}
		if tc.mode != "off" && (len(p.Skipped) != 1 || p.Skipped[0] != extra+" (does not exist)") {
			t.Errorf("Plan(mode %q) skipped = %q, want the missing extra root", tc.mode, p.Skipped)
		}
	}
	if _, err := Plan(Options{Mode: "strict"}); err == nil {
		t.Error(`Plan(mode "strict") = nil error, want one naming the valid modes`)
	}
	if _, err := Plan(Options{Network: "lan"}); err == nil {
		t.Error(`Plan(network "lan") = nil error, want one naming the valid values`)
	}
	p, err := Plan(Options{Mode: "read-only", Network: "loopback", Temp: []string{tmp}})
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSpec(p.Spec())
	if err != nil || back.Mode != ReadOnly || back.Network != NetLoopback || len(back.Writable) != 1 {
		t.Errorf("ParseSpec(Spec()) = %+v, %v; want the policy back", back, err)
	}
}

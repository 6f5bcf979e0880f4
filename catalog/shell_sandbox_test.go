package catalog

import (
	"testing"

	"github.com/whale-ls/whale-ls/sandbox"
)

// TestSandboxBrief: the policy note of a session's first shell result is
// one short line that names kinds of folders, not every folder.
func TestSandboxBrief(t *testing.T) {
	for _, tc := range []struct {
		p    sandbox.Policy
		want string
	}{
		{sandbox.Policy{Mode: sandbox.WorkspaceWrite, Network: sandbox.NetOn, Writable: []sandbox.Root{
			{Path: "/w", Why: "workspace"}, {Path: "/tmp", Why: "temp folder"}, {Path: "/var/tmp", Why: "temp folder"},
			{Path: "/home/u/.cache/go-build", Why: "Go build cache"}, {Path: "/home/u/go/pkg/mod", Why: "Go module cache"},
		}}, "sandbox workspace-write: writes only in the workspace (.git included), the temp folders, 2 toolchain caches; network on"},
		{sandbox.Policy{Mode: sandbox.ReadOnly, Network: sandbox.NetOff, Writable: []sandbox.Root{{Path: "/tmp", Why: "temp folder"}, {Path: "/data", Why: "shell.writableRoots"}}, Skipped: []string{"/gone"}},
			"sandbox read-only: writes only in the temp folders, /data (shell.writableRoots); network off; shell.writableRoots skipped: /gone"},
		{sandbox.Policy{Mode: sandbox.Off, Network: sandbox.NetLoopback}, "sandbox off: writes are not confined; network loopback"},
	} {
		if got := sandboxBrief(tc.p); got != tc.want {
			t.Errorf("sandboxBrief(%s) = %q, want %q", tc.p.Mode, got, tc.want)
		}
	}
}

package main

import (
	"strings"
	"testing"
)

// TestMCPHTTPFlags: the HTTP transport's flags are refused without --http,
// and a listen address that is not loopback is refused, naming the flag
// that allows it, before anything starts.
func TestMCPHTTPFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"mcp", "--token-file", "tok"}, "go with --http"},
		{[]string{"mcp", "--allow-remote"}, "go with --http"},
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "not a loopback address (use 127.0.0.1, [::1] or localhost, or allow remote clients explicitly); --allow-remote allows it"},
		{[]string{"mcp", "--http", "127.0.0.1"}, "use host:port"},
	} {
		code, _, errOut := runCLI(t, dir, "", tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.err) {
			t.Errorf("whale-ls %q = exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, exitUsage, tc.err)
		}
	}
}

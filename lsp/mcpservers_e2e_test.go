//go:build linux

package lsp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
)

// TestNoMCPServerOutlivesWhale runs whale-ls with an MCP server that
// ignores the end of its input and SIGTERM and has a child of its own,
// through every way whale-ls ends — `call`, `tools`, `mcp` at the end of
// its input and `mcp` on SIGTERM — and looks for any of them afterwards.
func TestNoMCPServerOutlivesWhale(t *testing.T) {
	root := writeFiles(t, nil)
	state := t.TempDir()
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+state, "XDG_STATE_HOME="+state)
	config := func(marker string) string {
		cfg := filepath.Join(t.TempDir(), "cfg.json")
		servers := map[string]any{"mcp": map[string]any{"servers": map[string]any{
			"stuck": map[string]any{"command": mcptest.Server(t), "args": []string{marker, mcptest.LingerArg}},
		}}}
		if err := os.WriteFile(cfg, mustJSON(t, servers), 0o600); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	run := func(t *testing.T, args []string, end func(cmd *exec.Cmd, marker string)) {
		marker := "stuck-" + strings.TrimPrefix(sleepMarker(), "1000.")
		cmd := exec.Command(whaleBinary(t), append(args, "--root", root, "--config", config(marker))...)
		if args[0] == "call" {
			cmd.Args = append(cmd.Args, "mcp__stuck__echo", `{"text":"hi"}`)
		}
		cmd.Env = env
		end(cmd, marker)
		deadline := time.Now().Add(3 * time.Second)
		for len(markedPIDs(marker)) > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if left := markedPIDs(marker); len(left) > 0 {
			for _, p := range left {
				var pid int
				if _, err := fmt.Sscan(p, &pid); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			t.Errorf("after whale-ls %s ended, its MCP server's processes are left: %v", args[0], left)
		}
	}
	finishes := func(cmd *exec.Cmd, marker string) {
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
	}
	t.Run("call", func(t *testing.T) { run(t, []string{"call"}, finishes) })
	t.Run("tools", func(t *testing.T) { run(t, []string{"tools"}, finishes) })
	for _, how := range []string{"end of input", "SIGTERM"} {
		t.Run("mcp, "+how, func(t *testing.T) {
			run(t, []string{"mcp", "--standalone"}, func(cmd *exec.Cmd, marker string) {
				in, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
					`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
					`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__stuck__echo","arguments":{"text":"hi"}}}` + "\n"))
				waitFor(t, "the MCP server to start", func() bool { return len(markedPIDs(marker)) >= 2 })
				if how == "SIGTERM" {
					cmd.Process.Signal(syscall.SIGTERM)
				} else {
					in.Close()
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					t.Fatalf("whale-ls mcp did not exit after %s", how)
				}
			})
		})
	}
	// Over HTTP the servers start with the server, before any client.
	t.Run("mcp --http, SIGTERM", func(t *testing.T) {
		run(t, []string{"mcp", "--standalone", "--http", "127.0.0.1:0", "--token-file", filepath.Join(t.TempDir(), "token")}, func(cmd *exec.Cmd, marker string) {
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the MCP server to start", func() bool { return len(markedPIDs(marker)) >= 2 })
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("whale-ls mcp --http did not exit after SIGTERM")
			}
		})
	})
}

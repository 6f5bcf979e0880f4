// Package mcptest builds the small MCP server that tests of several
// packages start over stdio (mcphost/internal/testserver). It is for tests
// only: it builds with the go command and fails the test when it cannot.
package mcptest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once sync.Once
	dir  string
	bin  string
	err  error
)

// LingerArg makes the test server ignore the end of its input and SIGTERM,
// and start a child that outlives it: a server a client must still end.
const LingerArg = "--linger"

// Server returns the path of the test MCP server, building it once per
// test process. Call Cleanup from TestMain to remove it.
func Server(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		dir, err = os.MkdirTemp("", "whale-mcptest")
		if err != nil {
			return
		}
		bin = filepath.Join(dir, "testserver")
		out, berr := exec.Command("go", "build", "-o", bin, "github.com/whale-ls/whale-ls/mcphost/internal/testserver").CombinedOutput()
		if berr != nil {
			err = errors.New("building the test MCP server: " + string(out))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Cleanup removes the built server, if any.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

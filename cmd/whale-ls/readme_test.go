package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeListsEveryTool keeps README's tool table in step with the
// catalog: every tool of a session (plus tool_search, which appears only
// with a deferred MCP server) has a row.
func TestReadmeListsEveryTool(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	sess, err := newSession(t.TempDir(), "", "deny", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.close()
	names := append(sess.registry.Names(), "tool_search")
	for _, name := range names {
		if !strings.Contains(readme, "| `"+name+"` |") {
			t.Errorf("README's tool table has no row for %s", name)
		}
	}
}

// Package testtree writes trees of files for tests: the one helper that
// the tests of search, workspace, changes, catalog and lsp share.
package testtree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write creates files (slash paths → content) under dir, with the folders
// they need; a name ending in "/" is an empty folder.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package catalog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// openDocs is an Editor that only has open buffers.
type openDocs []toolbridge.Document

func (e openDocs) Document(p string) (toolbridge.Document, bool) {
	for _, d := range e {
		if d.Path == p {
			return d, true
		}
	}
	return toolbridge.Document{}, false
}
func (e openDocs) Documents() []toolbridge.Document                            { return e }
func (openDocs) ApplyEdits(context.Context, []toolbridge.DocumentChange) error { return nil }
func (openDocs) SaveDocuments(context.Context, []string) ([]string, bool, error) {
	return nil, false, nil
}

func TestGrepTool(t *testing.T) {
	_, r, _ := testWorkspace(t, map[string]string{
		"main.go":       "package main\n\nfunc main() {\n\tserve()\n}\n",
		"srv/http.go":   "package srv\n\nfunc healthHandler() {}\n",
		"srv/notes.txt": "func main is in main.go\n",
		".gitignore":    "gen/\n",
		"gen/x.go":      "func main() {}\n",
	}, searchTools)
	for _, tc := range []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"pattern": "func main"}, "main.go:3:func main() {\nsrv/notes.txt:1:func main is in main.go"},
		{map[string]any{"pattern": "func main", "include": "*.go", "context": 1}, "main.go-2-\nmain.go:3:func main() {\nmain.go-4-\tserve()"},
		{map[string]any{"pattern": `func \w+Handler\(`, "path": "srv"}, "srv/http.go:3:func healthHandler() {}"},
		{map[string]any{"pattern": "FUNC", "case_insensitive": true, "output_mode": "files"}, "main.go\nsrv/http.go\nsrv/notes.txt"},
		{map[string]any{"pattern": "func", "output_mode": "count"}, "main.go: 1\nsrv/http.go: 1\nsrv/notes.txt: 1"},
		{map[string]any{"pattern": "nothing here"}, `No matches for "nothing here" in the workspace.`},
	} {
		env := call(t, r, "grep", tc.input)
		if !env.OK || env.Text != tc.want {
			t.Errorf("grep %v = %s %q, want ok %q", tc.input, env.Code, env.Text, tc.want)
		}
	}
}

func TestGrepToolFailures(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"a.go": "x\n"}, searchTools)
	outside := t.TempDir()
	for _, tc := range []struct {
		input map[string]any
		code  string
		says  []string
	}{
		{map[string]any{"pattern": "fmt.Println("}, toolbridge.CodeInvalidInput, []string{`"fmt.Println("`, "missing closing )", "fixed_strings:true"}},
		{map[string]any{"pattern": `(?<=a)b`}, toolbridge.CodeInvalidInput, []string{"not a valid RE2", "lookaround"}},
		{map[string]any{"pattern": "x", "include": "*.{go"}, toolbridge.CodeInvalidInput, []string{"glob", "*.{go"}},
		{map[string]any{"pattern": "x", "path": "nope"}, toolbridge.CodeNotFound, []string{"nope"}},
		{map[string]any{"pattern": "x", "path": outside}, toolbridge.CodePathNotAllowed, nil},
		{map[string]any{"pattern": "x", "path": filepath.Join(root, "..")}, toolbridge.CodePathNotAllowed, nil},
		{map[string]any{"pattern": ""}, toolbridge.CodeInvalidInput, []string{"empty"}},
	} {
		env := call(t, r, "grep", tc.input)
		if env.OK || env.Code != tc.code {
			t.Errorf("grep %v = %s %q, want code %s", tc.input, env.Code, env.Text, tc.code)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(env.Text, s) {
				t.Errorf("grep %v text %q does not say %q", tc.input, env.Text, s)
			}
		}
	}
}

func TestSearchToolsSeeEditorBuffers(t *testing.T) {
	elsewhere := t.TempDir()
	_, r, _ := testWorkspaceWith(t, map[string]string{"a.go": "// on disk\n"}, func(d *testDeps, root string) {
		d.Editor = openDocs{
			{Path: filepath.Join(root, "a.go"), Version: 3, Text: "// in the buffer\n"},
			{Path: filepath.Join(root, "new", "b.go"), Version: 1, Text: "// in the buffer too\n"},
			{Path: filepath.Join(elsewhere, "elsewhere.go"), Version: 1, Text: "// in the buffer\n"},
		}
	}, searchTools)
	env := call(t, r, "grep", map[string]any{"pattern": "buffer"})
	if want := "a.go:1:// in the buffer\nnew/b.go:1:// in the buffer too"; env.Text != want {
		t.Errorf("grep with open buffers = %q, want %q", env.Text, want)
	}
	env = call(t, r, "grep", map[string]any{"pattern": "on disk"})
	if !strings.HasPrefix(env.Text, "No matches") {
		t.Errorf("grep for the disk text of an open file = %q, want no matches", env.Text)
	}
	env = call(t, r, "search_files", map[string]any{"pattern": "*.go"})
	if env.Text != "a.go\nnew/b.go" {
		t.Errorf("search_files with an unsaved new buffer = %q", env.Text)
	}
}

package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestListDir(t *testing.T) {
	files := map[string]string{
		".gitignore":       "build/\n*.log\n",
		"README.md":        "",
		"src/main.go":      "",
		"src/deep/er/x.go": "",
		"build/out.bin":    "",
		"debug.log":        "",
		".git/HEAD":        "ref",
	}
	for i := 0; i < 1005; i++ {
		files[fmt.Sprintf("many/f%04d.txt", i)] = ""
	}
	_, r, _ := testWorkspace(t, files, fileTools)
	env := call(t, r, "list_dir", map[string]any{"depth": 2})
	for _, w := range []string{"./:\n", "\nREADME.md\n", "\nsrc/\n", "\n  main.go\n", "\n  deep/\n", "\n.gitignore\n", "\n  … 905 more entries (list many to see them)"} {
		if !strings.Contains(env.Text, w) {
			t.Errorf("list_dir text lacks %q:\n%s", w, env.Text)
		}
	}
	for _, w := range []string{"build", "debug.log", ".git/", "HEAD", "er/"} {
		if strings.Contains(env.Text, w) {
			t.Errorf("list_dir text contains %q, which is ignored or too deep", w)
		}
	}
	env = call(t, r, "list_dir", map[string]any{"path": "src", "depth": 5})
	if want := "src/:\ndeep/\n  er/\n    x.go\nmain.go\n(2 folders, 2 files shown, depth 5; ignored files hidden)"; env.Text != want {
		t.Errorf("list_dir src depth 5 = %q, want %q", env.Text, want)
	}
	env = call(t, r, "list_dir", map[string]any{"include_ignored": true, "depth": 1})
	if !strings.Contains(env.Text, "build/") || !strings.Contains(env.Text, "debug.log") || strings.Contains(env.Text, ".git/") {
		t.Errorf("list_dir include_ignored = %q, want ignored entries but never .git", env.Text)
	}
	if env := call(t, r, "list_dir", map[string]any{"path": "README.md"}); env.Code != toolbridge.CodeInvalidInput {
		t.Errorf("list_dir on a file = %s", env.Code)
	}
	env = call(t, r, "list_dir", map[string]any{"path": "many"})
	if !strings.Contains(env.Text, "\n… 5 more entries (list many to see them)") {
		t.Errorf("list_dir of 1005 files should show 1000 and count 5 more: %q", env.Text[len(env.Text)-200:])
	}
}

package catalog

import "testing"

func TestSearchFilesTool(t *testing.T) {
	_, r, _ := testWorkspace(t, map[string]string{
		"main.go":             "",
		"cmd/x/main.go":       "",
		"cmd/x/main_test.go":  "",
		"node_modules/m/a.go": "",
		".gitignore":          "node_modules/\n",
	}, searchTools)
	for _, tc := range []struct {
		input map[string]any
		ok    bool
		want  string
	}{
		{map[string]any{"pattern": "main.go"}, true, "cmd/x/main.go\nmain.go"},
		{map[string]any{"pattern": "**/*_test.go"}, true, "cmd/x/main_test.go"},
		{map[string]any{"pattern": "*.go", "max_results": 1}, true, "cmd/x/main.go\n[2 more files not shown; narrow with path or a more specific pattern, or raise max_results]"},
		{map[string]any{"pattern": "*.rs"}, true, `No files match "*.rs" in the workspace.`},
		{map[string]any{"pattern": "*.go", "path": "main.go"}, false, "main.go is a file, not a folder; give its folder as path, or use read_file to read it"},
	} {
		env := call(t, r, "search_files", tc.input)
		if env.OK != tc.ok || env.Text != tc.want {
			t.Errorf("search_files %v = %v %s %q, want %q", tc.input, env.OK, env.Code, env.Text, tc.want)
		}
	}
}

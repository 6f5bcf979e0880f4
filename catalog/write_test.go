package catalog

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestWriteTool(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"old.txt": "a\r\nb\r\n"}, editTools, fileTools)
	for _, tc := range []struct {
		path, content, want, text string
	}{
		{"new/deep/run.bat", "@echo off\necho hi\n", "@echo off\r\necho hi\r\n", "Created new/deep/run.bat (2 lines, UTF-8, CRLF)"},
		{"x.ps1", "Write-Host hi\n", "Write-Host hi\n", "Created x.ps1"},
		{"old.txt", "a\nb\nc\n", "a\r\nb\r\nc\r\n", "Wrote old.txt (+1 -0 lines)"},
	} {
		env := call(t, r, "write", map[string]any{"file_path": tc.path, "content": tc.content})
		if !env.OK || !strings.Contains(env.Text, tc.text) {
			t.Errorf("write %s = %s %q, want text %q", tc.path, env.Code, env.Text, tc.text)
		}
		if got := readTestFile(t, root, tc.path); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.path, got, tc.want)
		}
	}
	if env := call(t, r, "write", map[string]any{"file_path": "old.txt", "content": "a\nb\nc\n"}); env.Code != toolbridge.CodeNoChange {
		t.Errorf("writing the same content = %s, want no_change", env.Code)
	}
}

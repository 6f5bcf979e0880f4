package lsp_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type previewFile struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

type previewResult struct {
	ReadOnly  bool          `json:"readOnly"`
	WhaleAsks bool          `json:"whaleAsks"`
	Title     string        `json:"title"`
	Detail    string        `json:"detail"`
	Files     []previewFile `json:"files"`
	Error     string        `json:"error"`
}

func previewCall(t *testing.T, s *session, tool string, input any) previewResult {
	t.Helper()
	var p previewResult
	if _, err := s.conn.Call(ctxT(t), "whale/preview", map[string]any{"tool": tool, "input": input}, &p); err != nil {
		t.Fatalf("whale/preview %s: %v", tool, err)
	}
	return p
}

// TestPreviewEdit asks the real server over stdio what an edit will do,
// for the host's approval: the diff comes from the same plan as the commit
// (on the editor's unsaved buffer when the file is open), and nothing is
// written or journaled.
func TestPreviewEdit(t *testing.T) {
	root := writeFiles(t, map[string]string{"src/app/main.go": "package main\n\nfunc hello() string {\n\treturn \"hello\"\n}\n", "notes.md": "one\n"})
	s := start(t, root, sessionOptions{})
	p := previewCall(t, s, "edit", map[string]any{"file_path": "src/app/main.go", "search": "\treturn \"hello\"", "replace": "\treturn \"hi\"\n\t// greeted"})
	want := previewResult{
		Title:  "Edit src/app/main.go (+2 −1)",
		Detail: "```diff\n--- a/src/app/main.go\n+++ b/src/app/main.go\n@@ -1,5 +1,6 @@\n package main\n \n func hello() string {\n-\treturn \"hello\"\n+\treturn \"hi\"\n+\t// greeted\n }\n```",
		Files:  []previewFile{{Path: "src/app/main.go", Added: 2, Removed: 1}},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("whale/preview edit (-want +got):\n%s", diff)
	}

	// Open in the editor with unsaved text: the preview plans on the buffer.
	s.open("notes.md", "one\ntwo (unsaved)\n", 1)
	p = previewCall(t, s, "edit", map[string]any{"file_path": "notes.md", "search": "two (unsaved)", "replace": "two"})
	if p.Error != "" || !strings.Contains(p.Detail, "-two (unsaved)\n+two\n") || !strings.Contains(p.Detail, "notes.md is open in the editor") {
		t.Errorf("whale/preview of an open document = %+v, want the buffer's diff and a note that it is open", p)
	}

	// A search that is not there: the error, and what will fail.
	p = previewCall(t, s, "edit", map[string]any{"file_path": "src/app/main.go", "search": "goodbye", "replace": "bye"})
	if !strings.Contains(p.Error, "src/app/main.go") || !strings.HasPrefix(p.Detail, "This call will fail: ") || p.Title != "Edit src/app/main.go" {
		t.Errorf("whale/preview of a search not found = %+v, want an error naming the file", p)
	}

	// A todo changes nothing of the user's.
	if p = previewCall(t, s, "todo_add", map[string]any{"content": "check"}); !p.ReadOnly || p.WhaleAsks {
		t.Errorf("whale/preview todo_add = %+v, want readOnly", p)
	}

	if b, _ := os.ReadFile(s.path("src/app/main.go")); !strings.Contains(string(b), "\"hello\"") {
		t.Errorf("main.go after the previews = %q, want it untouched", b)
	}
	var list struct {
		Entries []any `json:"entries"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/changes/list", map[string]any{}, &list); err != nil || len(list.Entries) != 0 {
		t.Errorf("whale/changes/list after the previews = %d entries, %v; want none", len(list.Entries), err)
	}
	// No lock is left: the edit itself commits, and its result fences the diff.
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "src/app/main.go", "search": "\treturn \"hello\"", "replace": "\treturn \"hi\""})
	wantText(t, env, "Edited src/app/main.go: 1 replacement at line 4", "```diff\n@@ -1,5 +1,5 @@\n", "+\treturn \"hi\"\n }\n```")
}

// TestPreviewReviewAsks: with edits.review on, whale itself asks, so the
// host should not.
func TestPreviewReviewAsks(t *testing.T) {
	s := start(t, writeFiles(t, map[string]string{"a.txt": "a\n"}), sessionOptions{initOptions: map[string]any{"edits": map[string]any{"review": "ask"}}})
	p := previewCall(t, s, "write", map[string]any{"file_path": "build/sub/out.txt", "content": "x\n"})
	if !p.WhaleAsks || p.Title != "Create build/sub/out.txt (+1)" {
		t.Errorf("whale/preview write with review on = %+v, want whaleAsks and the created file", p)
	}
}

// TestPreviewShell: behind the exec boundary, a command's preview says in
// plain words that whale will ask, and why.
func TestPreviewShell(t *testing.T) {
	s, _ := gatedSession(t, map[string]any{"execBoundary": map[string]any{"rules": []any{
		map[string]any{"program": "rm", "argsAny": []any{"-*[rRf]*"}, "decision": "ask", "why": "deletes files recursively or without asking"},
		map[string]any{"program": "curl", "decision": "deny"},
	}}})
	p := previewCall(t, s, "shell_run", map[string]any{"command": "rm -rf build", "cwd": "victim"})
	if !p.WhaleAsks || p.ReadOnly || p.Error != "" || p.Title != "Run `rm -rf build` in victim/" {
		t.Errorf("whale/preview rm -rf = %+v, want whaleAsks, titled with the command and folder", p)
	}
	for _, part := range []string{"```sh\nrm -rf build\n```", "Folder: `victim/`", "`rm` with `-rf` deletes files recursively or without asking"} {
		if !strings.Contains(p.Detail, part) {
			t.Errorf("whale/preview rm -rf: detail %q lacks %q", p.Detail, part)
		}
	}
	if strings.Contains(p.Detail, "[rRf]") || strings.Contains(p.Detail, "task") {
		t.Errorf("whale/preview rm -rf: detail %q shows rule syntax or a task id", p.Detail)
	}
	if p = previewCall(t, s, "shell_run", map[string]any{"command": "curl -s example.com"}); p.Error == "" || p.WhaleAsks {
		t.Errorf("whale/preview curl = %+v, want the refusal as error", p)
	}
	if p = previewCall(t, s, "shell_run", map[string]any{"command": "ls -la"}); !p.ReadOnly || p.WhaleAsks || p.Error != "" {
		t.Errorf("whale/preview ls = %+v, want readOnly", p)
	}
	if _, err := os.Stat(s.path("victim/keep.txt")); err != nil {
		t.Errorf("victim/keep.txt after the previews: %v", err)
	}
}

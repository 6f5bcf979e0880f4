package lsp_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func (e *fakeEditor) text(u uri.URI) (string, int32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.docs[u]
	return d.text, d.version
}

func diskText(t *testing.T, s *session, rel string) string {
	t.Helper()
	b, err := os.ReadFile(s.path(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEditLandsInTheUnsavedBuffer: the file is open with unsaved changes;
// the edit matches the buffer, is applied by the editor at the buffer's
// version with minimal edits, and the disk is untouched (the client cannot
// save on request).
func TestEditLandsInTheUnsavedBuffer(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.go": "package a\n// on disk\n"})
	s := start(t, root, sessionOptions{})
	u := s.open("a.go", "package a\n\nfunc A() {}\n\nfunc B() {}\n", 3)
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.go", "search": "func B() {}", "replace": "func B() int { return 2 }"})
	if !env.OK {
		t.Fatalf("edit = %s %q", env.Code, env.Text)
	}
	wantText(t, env, "editor buffer only")
	if got, v := s.ed.text(u); got != "package a\n\nfunc A() {}\n\nfunc B() int { return 2 }\n" || v != 4 {
		t.Fatalf("buffer = %q version %d", got, v)
	}
	if got := diskText(t, s, "a.go"); got != "package a\n// on disk\n" {
		t.Fatalf("disk changed to %q; the edit belongs in the buffer", got)
	}
	s.ed.mu.Lock()
	applied := string(s.ed.applied[0])
	s.ed.mu.Unlock()
	if !strings.Contains(applied, `"version":3`) || !strings.Contains(applied, `"range":{"start":{"line":4,"character":9},"end":{"line":4,"character":10}},"newText":"int { return 2 "`) {
		t.Errorf("applyEdit = %s; want version 3 and a minimal edit inside line 4", applied)
	}
}

func TestEditSavesWhenTheClientCan(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "old\n"})
	s := start(t, root, sessionOptions{experimental: map[string]any{"whale": map[string]any{"saveDocuments": true}}})
	u := s.open("a.txt", "old\nunsaved line\n", 1)
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.txt", "search": "unsaved line", "replace": "saved line"})
	if !env.OK {
		t.Fatalf("edit = %s %q", env.Code, env.Text)
	}
	wantText(t, env, "saved")
	if got := diskText(t, s, "a.txt"); got != "old\nsaved line\n" {
		t.Fatalf("disk = %q, want the saved buffer", got)
	}
	s.ed.mu.Lock()
	defer s.ed.mu.Unlock()
	if len(s.ed.saves) != 1 || s.ed.saves[0][0] != string(u) {
		t.Fatalf("saveDocuments requests = %v", s.ed.saves)
	}
}

func TestEditConflictsWithTheEditor(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		mention string
	}{
		{"typeFirst", "kept changing"}, // the user types before every try: the version keeps moving
		{"refuse", "refused"},          // applied:false
		{"lie", "did not change"},      // applied:true without applying (Neovim's built-in handler)
	} {
		t.Run(tc.mode, func(t *testing.T) {
			root := writeFiles(t, map[string]string{"a.txt": "x\n"})
			s := start(t, root, sessionOptions{})
			u := s.open("a.txt", "alpha\nbeta\n", 1)
			s.ed.mu.Lock()
			s.ed.applyMode = tc.mode
			s.ed.mu.Unlock()
			env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.txt", "search": "beta", "replace": "gamma"})
			if env.Code != toolbridge.CodeWriteConflict {
				t.Fatalf("edit with an editor that %s = %s %q, want write_conflict", tc.mode, env.Code, env.Text)
			}
			wantText(t, env, tc.mention)
			if got, _ := s.ed.text(u); strings.Contains(got, "gamma") {
				t.Errorf("buffer = %q: a conflicting edit must not land", got)
			}
			if got := diskText(t, s, "a.txt"); got != "x\n" {
				t.Errorf("disk = %q: a conflicting edit must not reach the disk", got)
			}
		})
	}
}

// TestEditReplansAfterTheUserTyped: the user types once between whale's
// read and its applyEdit; the editor refuses the stale version, and the
// edit is planned again on the new text and lands at the next version.
func TestEditReplansAfterTheUserTyped(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "x\n"})
	s := start(t, root, sessionOptions{})
	u := s.open("a.txt", "alpha\nbeta\n", 1)
	s.ed.mu.Lock()
	s.ed.applyMode = "typeOnce"
	s.ed.mu.Unlock()
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.txt", "search": "beta", "replace": "gamma"})
	if !env.OK {
		t.Fatalf("edit = %s %q, want it applied on top of what the user typed", env.Code, env.Text)
	}
	if got, v := s.ed.text(u); got != "typed alpha\ngamma\n" || v != 3 {
		t.Errorf("buffer = %q version %d, want the typing and the edit at version 3", got, v)
	}
}

// TestEditPositionsInCRLFAndWideCharacters: UTF-16 positions across an
// emoji (a surrogate pair), CJK text and CRLF line ends.
func TestEditPositionsInCRLFAndWideCharacters(t *testing.T) {
	root := writeFiles(t, map[string]string{"w.txt": ""})
	s := start(t, root, sessionOptions{})
	start := "a😀b 中文\r\nx = 1\r\n🎉 end\r\n"
	u := s.open("w.txt", start, 1)
	for _, step := range []struct{ search, replace, want string }{
		{"b 中文", "B 中文!", "a😀B 中文!\r\nx = 1\r\n🎉 end\r\n"},
		{"x = 1", "x = 2", "a😀B 中文!\r\nx = 2\r\n🎉 end\r\n"},
		{"🎉 end", "🎉 fin", "a😀B 中文!\r\nx = 2\r\n🎉 fin\r\n"},
	} {
		env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "w.txt", "search": step.search, "replace": step.replace})
		if !env.OK {
			t.Fatalf("edit %q = %s %q", step.search, env.Code, env.Text)
		}
		if got, _ := s.ed.text(u); got != step.want {
			t.Fatalf("after edit %q the editor holds %q, want %q", step.search, got, step.want)
		}
	}
}

func TestEditClosedFileGoesToDisk(t *testing.T) {
	root := writeFiles(t, map[string]string{"c.txt": "one\r\ntwo\r\n"})
	s := start(t, root, sessionOptions{})
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "c.txt", "search": "two", "replace": "2"})
	if !env.OK {
		t.Fatalf("edit = %s %q", env.Code, env.Text)
	}
	if got := diskText(t, s, "c.txt"); got != "one\r\n2\r\n" {
		t.Fatalf("disk = %q, want the edit with CRLF kept", got)
	}
	s.ed.mu.Lock()
	defer s.ed.mu.Unlock()
	if len(s.ed.applied) != 0 {
		t.Fatalf("a closed file was sent to the editor: %s", s.ed.applied)
	}
	var data map[string]any
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &data)
	if !strings.Contains(env.Text, "-two") || !strings.Contains(env.Text, "+2") {
		t.Errorf("edit result %q carries no diff", env.Text)
	}
}

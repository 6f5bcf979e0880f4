package lsp_test

import (
	"strings"
	"testing"
)

// TestChangesRevertThroughTheEditor: an edit of an open document is
// journaled; the user then types elsewhere in the buffer; whale/changes/list
// lists the edit, whale/changes/diff shows its texts, and
// whale/changes/revert takes it back with an applyEdit at the buffer's
// current version, keeping what the user typed; the editor is told of each
// journaled change.
func TestChangesRevertThroughTheEditor(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "l1\nl2\nl3\nl4\nl5\n"})
	s := start(t, root, sessionOptions{})
	u := s.open("a.txt", "l1\nl2\nl3\nl4\nl5\n", 1)
	if env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.txt", "search": "l2", "replace": "whale"}); !env.OK {
		t.Fatalf("edit = %s %q", env.Code, env.Text)
	}
	s.change(u, rng(4, 0, 4, 2), "typed", "l1\nwhale\nl3\nl4\ntyped\n")

	var list struct {
		Entries []struct {
			ID    string `json:"id"`
			Tool  string `json:"tool"`
			Files []struct {
				URI   string `json:"uri"`
				Where string `json:"where"`
			} `json:"files"`
		} `json:"entries"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/changes/list", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Entries) != 1 || list.Entries[0].Tool != "edit" || len(list.Entries[0].Files) != 1 || list.Entries[0].Files[0].Where != "editor" || list.Entries[0].Files[0].URI != string(u) {
		t.Fatalf("whale/changes/list = %+v, want the edit of %s in the editor", list, u)
	}
	id := list.Entries[0].ID
	var diff struct {
		Diff  string `json:"diff"`
		Files []struct {
			Before *string `json:"before"`
			After  *string `json:"after"`
		} `json:"files"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/changes/diff", map[string]any{"id": id}, &diff); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff.Diff, "+whale") || len(diff.Files) != 1 || diff.Files[0].Before == nil || *diff.Files[0].Before != "l1\nl2\nl3\nl4\nl5\n" || diff.Files[0].After == nil || !strings.Contains(*diff.Files[0].After, "whale") {
		t.Fatalf("whale/changes/diff = %+v", diff)
	}

	var rev struct {
		OK       bool     `json:"ok"`
		Text     string   `json:"text"`
		Reverted []string `json:"reverted"`
		Entry    string   `json:"entry"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/changes/revert", map[string]any{"id": id}, &rev); err != nil {
		t.Fatal(err)
	}
	if !rev.OK || len(rev.Reverted) != 1 || rev.Entry == "" {
		t.Fatalf("whale/changes/revert = %+v", rev)
	}
	if got, v := s.ed.text(u); got != "l1\nl2\nl3\nl4\ntyped\n" || v != 4 {
		t.Errorf("buffer after the revert = %q version %d; want whale's line back, the typed one kept, version 4", got, v)
	}
	s.ed.mu.Lock()
	last := string(s.ed.applied[len(s.ed.applied)-1])
	var notes []string
	for _, n := range s.ed.whaleNT {
		if strings.HasPrefix(n, "whale/changes/changed ") {
			notes = append(notes, n)
		}
	}
	s.ed.mu.Unlock()
	if !strings.Contains(last, `"version":3`) {
		t.Errorf("the revert's applyEdit = %s; want it pinned to version 3, the buffer the user typed in", last)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], rev.Entry) {
		t.Errorf("whale/changes/changed notifications = %q, want one per journaled change, the last naming the revert", notes)
	}

	var conflict struct {
		OK        bool   `json:"ok"`
		Code      string `json:"code"`
		Conflicts []struct {
			Path string `json:"path"`
		} `json:"conflicts"`
	}
	s.change(u, rng(1, 0, 1, 2), "mine", "l1\nmine\nl3\nl4\ntyped\n")
	if _, err := s.conn.Call(ctxT(t), "whale/changes/revert", map[string]any{"id": rev.Entry}, &conflict); err != nil {
		t.Fatal(err)
	}
	if conflict.OK || conflict.Code != "write_conflict" || len(conflict.Conflicts) != 1 {
		t.Errorf("revert over the user's edit of the same line = %+v, want write_conflict with the file", conflict)
	}
	if got, _ := s.ed.text(u); got != "l1\nmine\nl3\nl4\ntyped\n" {
		t.Errorf("a conflicting revert changed the buffer to %q", got)
	}
}

package lsp_test

import (
	"os"
	"strings"
	"testing"
	"time"
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

type historyEntry struct {
	ID         string   `json:"id"`
	Time       string   `json:"time"`
	Tool       string   `json:"tool"`
	Title      string   `json:"title"`
	Command    string   `json:"command"`
	RevertOf   []string `json:"revertOf"`
	RevertedBy string   `json:"revertedBy"`
	Files      []struct {
		RelPath string `json:"relPath"`
		Name    string `json:"name"`
	} `json:"files"`
}

type revertAnswer struct {
	OK      bool   `json:"ok"`
	Code    string `json:"code"`
	Text    string `json:"text"`
	Message string `json:"message"`
	Entry   string `json:"entry"`
}

func history(t *testing.T, s *session) []historyEntry {
	t.Helper()
	var list struct {
		Entries []historyEntry `json:"entries"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/changes/list", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	return list.Entries
}

// TestHistoryOfAShellTask: a shell task's entry names its command and its
// files with their folders; the editor holding the created file (unchanged,
// as VS Code holds files it loaded for a diff view) does not stop its
// revert; the reverted entry says what reverted it; a buffer with unsaved
// text does stop it, with a message that says how to resolve it.
func TestHistoryOfAShellTask(t *testing.T) {
	root := writeFiles(t, map[string]string{"keep.txt": "keep\n"})
	s := start(t, root, sessionOptions{initOptions: map[string]any{"execBoundary": map[string]any{"mode": "off"}, "shell": map[string]any{"sandbox": "off"}}})
	command := "mkdir -p build/sub && echo hi > build/sub/out.txt && echo two > build/sub/two.txt"
	if env := s.exec(ctxT(t), "shell_run", map[string]any{"command": command}); !env.OK || !strings.Contains(env.Text, "journal entry") {
		t.Fatalf("shell_run = %s %q, want it journaled", env.Code, env.Text)
	}
	entries := history(t, s)
	if len(entries) != 1 {
		t.Fatalf("whale/changes/list = %+v, want the task's entry", entries)
	}
	e := entries[0]
	want := "`mkdir -p build/sub && echo hi > build/sub/out.txt && echo t…` created build/sub/out.txt and build/sub/two.txt (+2)"
	if e.Command != command || e.Title != want || len(e.Files) != 2 || e.Files[0].RelPath != "build/sub/out.txt" || e.Files[0].Name != "out.txt" {
		t.Errorf("the task's entry = %+v; want command %q, title %q and files relative to the workspace", e, command, want)
	}
	if _, err := time.Parse(time.RFC3339, e.Time); err != nil {
		t.Errorf("entry time %q is not RFC 3339: %v", e.Time, err)
	}

	// The editor holds out.txt, unchanged: the revert deletes it anyway.
	s.open("build/sub/out.txt", "hi\n", 0)
	var rev revertAnswer
	if _, err := s.conn.Call(ctxT(t), "whale/changes/revert", map[string]any{"id": e.ID}, &rev); err != nil {
		t.Fatal(err)
	}
	if !rev.OK || rev.Message != "Reverted build/sub/out.txt, build/sub/two.txt." {
		t.Fatalf("whale/changes/revert of the task = %+v, want it done and said for a person", rev)
	}
	for _, f := range []string{"build/sub/out.txt", "build/sub/two.txt"} {
		if _, err := os.Stat(s.path(f)); !os.IsNotExist(err) {
			t.Errorf("%s after the revert: %v, want it gone", f, err)
		}
	}
	entries = history(t, s)
	if len(entries) != 2 || entries[1].RevertedBy != rev.Entry || entries[0].Title != "Reverted build/sub/out.txt and build/sub/two.txt (+0 −2)" || strings.Contains(entries[0].Title, "changes_revert") {
		t.Errorf("whale/changes/list after the revert = %+v; want the task's entry marked reverted by %s and the revert titled once, for a person", entries, rev.Entry)
	}

	// Text the user added since, in the editor: refused, and the message says
	// what to do.
	if env := s.exec(ctxT(t), "shell_run", map[string]any{"command": "echo new > made.txt"}); !env.OK {
		t.Fatalf("shell_run = %s %q", env.Code, env.Text)
	}
	made := history(t, s)[0]
	s.open("made.txt", "new\nunsaved line\n", 0)
	if _, err := s.conn.Call(ctxT(t), "whale/changes/revert", map[string]any{"id": made.ID}, &rev); err != nil {
		t.Fatal(err)
	}
	if rev.OK || rev.Code != "write_conflict" || rev.Message != "Not reverted: made.txt changed after this change (in the editor, or by a later change), and reverting would overwrite that. Revert the later changes first, or edit the file by hand." {
		t.Errorf("whale/changes/revert over the user's text = %+v, want a refusal whose message says how to resolve it", rev)
	}
	if _, err := os.Stat(s.path("made.txt")); err != nil {
		t.Errorf("made.txt after the refused revert: %v", err)
	}
}

package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// journaled builds a workspace with the edit tools and a journal.
func journaled(t *testing.T, files map[string]string, groups ...func(*testDeps) []toolbridge.Tool) (*testDeps, *toolbridge.Registry, string) {
	t.Helper()
	return testWorkspaceWith(t, files, func(d *testDeps, root string) { withJournal(t, d, root) }, append([]func(*testDeps) []toolbridge.Tool{editTools}, groups...)...)
}

// blob reads one side of a journaled file; "" is an absent file.
func blob(t *testing.T, j *changes.Journal, id string) string {
	t.Helper()
	if id == "" {
		return "<absent>"
	}
	b, err := j.Blob(id)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEveryEditToolIsJournaled: edit, multi_edit, write and apply_patch
// each leave one entry, newest first, with the file's bytes before and
// after exactly (CRLF kept), the tool's name and the call's id.
func TestEveryEditToolIsJournaled(t *testing.T) {
	d, r, _ := journaled(t, map[string]string{"a.txt": "one\r\ntwo\r\n", "b.txt": "x\n"})
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"edit", map[string]any{"file_path": "a.txt", "search": "one", "replace": "uno"}},
		{"multi_edit", map[string]any{"file_path": "a.txt", "edits": []map[string]any{{"search": "two", "replace": "dos"}}}},
		{"write", map[string]any{"file_path": "new.txt", "content": "fresh\n"}},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch"}},
	} {
		if env := call(t, r, c.tool, c.input); !env.OK || !strings.Contains(env.Text, "Journal entry ") {
			t.Fatalf("%s = %s %q, want ok naming its journal entry", c.tool, env.Code, env.Text)
		}
	}
	entries, _, err := d.Journal.List("", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ tool, name, before, after string }{
		{"apply_patch", "b.txt", "x\n", "<absent>"},
		{"write", "new.txt", "<absent>", "fresh\n"},
		{"multi_edit", "a.txt", "uno\r\ntwo\r\n", "uno\r\ndos\r\n"},
		{"edit", "a.txt", "one\r\ntwo\r\n", "uno\r\ntwo\r\n"},
	}
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(entries), len(want), entries)
	}
	for i, w := range want {
		e := entries[i]
		if e.Tool != w.tool || len(e.Files) != 1 || !strings.HasSuffix(e.Files[0].Path, w.name) || e.CallID == "" {
			t.Errorf("entry %d = %+v, want one file %s by %s with a call id", i, e, w.name, w.tool)
			continue
		}
		if b, a := blob(t, d.Journal, e.Files[0].Before), blob(t, d.Journal, e.Files[0].After); b != w.before || a != w.after {
			t.Errorf("entry %d (%s): before %q after %q, want %q %q", i, w.tool, b, a, w.before, w.after)
		}
	}
	env := call(t, r, "changes_list", map[string]any{})
	if !env.OK || !strings.HasPrefix(env.Text, "4 changes (newest first):") || strings.Index(env.Text, "apply_patch") > strings.Index(env.Text, "edit a.txt") {
		t.Errorf("changes_list = %s %q", env.Code, env.Text)
	}
	env = call(t, r, "changes_list", map[string]any{"id": entries[3].ID})
	if !env.OK || !strings.Contains(env.Text, "-one") || !strings.Contains(env.Text, "+uno") {
		t.Errorf("changes_list of one entry = %s %q, want its diff", env.Code, env.Text)
	}
	if env := call(t, r, "changes_list", map[string]any{"since": entries[1].ID}); !env.OK || !strings.HasPrefix(env.Text, "1 change ") {
		t.Errorf("changes_list since the second newest = %q, want the newest only", env.Text)
	}
	if env := call(t, r, "changes_list", map[string]any{"id": "nope"}); env.Code != toolbridge.CodeNotFound {
		t.Errorf("changes_list of an unknown id = %s %q, want not_found", env.Code, env.Text)
	}
}

// TestJournalNamesTheCallsAgent: a call whose front end names the agent
// (whale-ls mcp --agent) is journaled under the agent's name.
func TestJournalNamesTheCallsAgent(t *testing.T) {
	d, r, _ := journaled(t, map[string]string{"a.txt": "one\n"})
	input, _ := json.Marshal(map[string]any{"file_path": "a.txt", "search": "one", "replace": "uno"})
	if env := r.Dispatch(context.Background(), toolbridge.Call{Name: "edit", Input: input, Agent: "Gemini CLI"}); !env.OK {
		t.Fatalf("edit = %s %q", env.Code, env.Text)
	}
	entries, _, err := d.Journal.List("", 0)
	if err != nil || len(entries) != 1 {
		t.Fatalf("journal = %+v, %v; want one entry", entries, err)
	}
	if got, want := d.Journal.Title(entries[0]), "Gemini CLI edited a.txt (+1 −1)"; got != want || entries[0].Tool != "edit" {
		t.Errorf("entry %s titled %q, want edit titled %q", entries[0].Tool, got, want)
	}
}

// TestFailedCommitLeavesNoEntry: a change the editor refuses is not
// journaled.
func TestFailedCommitLeavesNoEntry(t *testing.T) {
	ed := &stubEditor{applyFailure: errors.New("the editor refused")}
	d, r, _ := testWorkspaceWith(t, map[string]string{"open.txt": "a\n"}, func(d *testDeps, root string) {
		withJournal(t, d, root)
		abs := root + "/open.txt"
		ed.docs = map[string]toolbridge.Document{abs: {Path: abs, Version: 1, Text: "a\n"}}
		d.Editor = ed
	}, editTools)
	if env := call(t, r, "edit", map[string]any{"file_path": "open.txt", "search": "a", "replace": "b"}); env.OK {
		t.Fatalf("edit with a refusing editor = %+v, want a failure", env)
	}
	if entries, _, _ := d.Journal.List("", 0); len(entries) != 0 {
		t.Errorf("a failed commit left entries: %+v", entries)
	}
}

// TestChangesToolsWithoutJournal: a session without a journal says so.
func TestChangesToolsWithoutJournal(t *testing.T) {
	_, r, _ := testWorkspace(t, map[string]string{"a.txt": "a\n"}, editTools)
	for _, tool := range []string{"changes_list", "changes_revert"} {
		if env := call(t, r, tool, map[string]any{"id": "x"}); env.Code != toolbridge.CodeNotConfigured {
			t.Errorf("%s without a journal = %s %q, want not_configured", tool, env.Code, env.Text)
		}
	}
}

package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// newestID is the id of the journal's newest entry.
func newestID(t *testing.T, d *testDeps) string {
	t.Helper()
	entries, _, err := d.Journal.List("", 1)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no journal entry: %v", err)
	}
	return entries[0].ID
}

func writeTestFile(t *testing.T, root, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const tenLines = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"

// TestRevertKeepsTheUsersLaterEdits: the user changed another part of the
// file after whale's edit; the revert takes back whale's part only. A
// revert of the revert puts whale's part back.
func TestRevertKeepsTheUsersLaterEdits(t *testing.T) {
	d, r, root := journaled(t, map[string]string{"a.txt": tenLines})
	call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "l2", "replace": "whale"})
	edit := newestID(t, d)
	writeTestFile(t, root, "a.txt", strings.Replace(strings.Replace(tenLines, "l2", "whale", 1), "l9", "user", 1))
	env := call(t, r, "changes_revert", map[string]any{"id": edit})
	if !env.OK || !strings.Contains(env.Text, "Reverted "+edit) {
		t.Fatalf("changes_revert = %s %q", env.Code, env.Text)
	}
	if got, want := readTestFile(t, root, "a.txt"), strings.Replace(tenLines, "l9", "user", 1); got != want {
		t.Errorf("after the revert a.txt = %q, want whale's line back and the user's kept: %q", got, want)
	}
	revert := newestID(t, d)
	if env := call(t, r, "changes_revert", map[string]any{"id": revert}); !env.OK {
		t.Fatalf("revert of the revert = %s %q", env.Code, env.Text)
	}
	if got, want := readTestFile(t, root, "a.txt"), strings.Replace(strings.Replace(tenLines, "l2", "whale", 1), "l9", "user", 1); got != want {
		t.Errorf("after reverting the revert a.txt = %q, want %q", got, want)
	}
}

// TestRevertConflicts: the same lines changed since, or a created file
// changed since, refuse the revert and change nothing.
func TestRevertConflicts(t *testing.T) {
	d, r, root := journaled(t, map[string]string{"a.txt": tenLines})
	call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "l2", "replace": "whale"})
	edit := newestID(t, d)
	userText := strings.Replace(tenLines, "l2", "user", 1)
	writeTestFile(t, root, "a.txt", userText)
	env := call(t, r, "changes_revert", map[string]any{"id": edit})
	if env.Code != toolbridge.CodeWriteConflict || !strings.Contains(env.Text, "a.txt") || !strings.Contains(env.Text, "nothing was changed") {
		t.Errorf("revert over the user's edit of the same line = %s %q, want write_conflict naming a.txt", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "a.txt"); got != userText {
		t.Errorf("a conflicting revert changed a.txt to %q", got)
	}

	call(t, r, "write", map[string]any{"file_path": "made.txt", "content": "by whale\n"})
	made := newestID(t, d)
	writeTestFile(t, root, "made.txt", "by whale\nand the user\n")
	if env := call(t, r, "changes_revert", map[string]any{"id": made}); env.Code != toolbridge.CodeWriteConflict {
		t.Errorf("revert of a created file changed since = %s %q, want write_conflict", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "made.txt"); got != "by whale\nand the user\n" {
		t.Errorf("the conflicting revert touched made.txt: %q", got)
	}
	writeTestFile(t, root, "made.txt", "by whale\n")
	if env := call(t, r, "changes_revert", map[string]any{"id": made}); !env.OK {
		t.Fatalf("revert of an unchanged created file = %s %q", env.Code, env.Text)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("the created file is still there after its revert: %v", err)
	}
}

// TestRevertTo takes back an entry and every later one, newest first.
func TestRevertTo(t *testing.T) {
	d, r, root := journaled(t, map[string]string{"a.txt": tenLines})
	call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "l3", "replace": "three"})
	first := newestID(t, d)
	call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "three", "replace": "tres"})
	call(t, r, "write", map[string]any{"file_path": "b.txt", "content": "b\n"})
	env := call(t, r, "changes_revert", map[string]any{"to": first})
	if !env.OK {
		t.Fatalf("changes_revert to = %s %q", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "a.txt"); got != tenLines {
		t.Errorf("a.txt = %q, want it as before the first entry", got)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt, created after the first entry, is still there")
	}
	if env := call(t, r, "changes_revert", map[string]any{"id": "x", "to": "y"}); env.Code != toolbridge.CodeInvalidInput {
		t.Errorf("id and to together = %s, want invalid_input", env.Code)
	}
}

// TestRevertOfAnOpenDocumentGoesThroughTheEditor: the buffer, modified by
// the user since, is changed by an applyEdit at its current version.
func TestRevertOfAnOpenDocumentGoesThroughTheEditor(t *testing.T) {
	ed := &stubEditor{saveSupported: true}
	var abs string
	d, r, _ := testWorkspaceWith(t, map[string]string{"open.txt": tenLines}, func(d *testDeps, root string) {
		withJournal(t, d, root)
		abs = filepath.Join(root, "open.txt")
		ed.docs = map[string]toolbridge.Document{abs: {Path: abs, Version: 3, Text: tenLines}}
		d.Editor = ed
	}, editTools)
	call(t, r, "edit", map[string]any{"file_path": "open.txt", "search": "l2", "replace": "whale"})
	edit := newestID(t, d)
	ed.mu.Lock()
	doc := ed.docs[abs]
	doc.Text, doc.Version = strings.Replace(doc.Text, "l9", "typed", 1), doc.Version+1
	ed.docs[abs] = doc
	ed.mu.Unlock()
	if env := call(t, r, "changes_revert", map[string]any{"id": edit}); !env.OK {
		t.Fatalf("revert of an open document = %s %q", env.Code, env.Text)
	}
	last := ed.applied[len(ed.applied)-1][0]
	if last.Version != doc.Version || last.NewText != strings.Replace(tenLines, "l9", "typed", 1) {
		t.Errorf("revert applyEdit = version %d text %q; want version %d with the typed line kept", last.Version, last.NewText, doc.Version)
	}
}

// TestShellTaskIsJournaledAndReverted: a task that creates, changes and
// deletes files (one through a subprocess) is one entry; reverting it
// restores all three; ignored files are not tracked.
func TestShellTaskIsJournaledAndReverted(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	files := map[string]string{"keep.txt": "old\n", "gone.txt": "bye\n", ".gitignore": "build/\n"}
	d, r, root := testWorkspaceWith(t, files, func(d *testDeps, root string) {
		withJournal(t, d, root)
		table := terminal.NewTable(terminal.Options{})
		t.Cleanup(func() { _ = table.Close() })
		d.Terminals = table
	}, shellTools, editTools)
	cmd := `mkdir -p build && echo artefact > build/out.o && echo new > made.txt && rm gone.txt && python3 -c "open('keep.txt','w').write('changed\n')"`
	env := call(t, r, "shell_run", map[string]any{"command": cmd})
	if !env.OK || !strings.Contains(env.Text, "the task changed 3 files in the workspace") {
		t.Fatalf("shell_run = %s %q, want it to say it changed 3 files", env.Code, env.Text)
	}
	entry := newestID(t, d)
	e, _ := d.Journal.Get(entry)
	for _, f := range e.Files {
		if strings.Contains(f.Path, "build") {
			t.Errorf("an ignored file was journaled: %s", f.Path)
		}
	}
	if env := call(t, r, "changes_revert", map[string]any{"id": entry}); !env.OK {
		t.Fatalf("revert of the task = %s %q", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "keep.txt"); got != "old\n" {
		t.Errorf("keep.txt = %q after the revert, want old", got)
	}
	if got := readTestFile(t, root, "gone.txt"); got != "bye\n" {
		t.Errorf("gone.txt = %q after the revert, want it back", got)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt is still there after the revert")
	}
	if got := readTestFile(t, root, "build/out.o"); got != "artefact\n" {
		t.Errorf("the ignored build/out.o was touched: %q", got)
	}
}

// TestShellTaskNamesGitCode: a task that plants a hook and sets a command
// in .git/config (here unconfined) is told so in its result, though the
// journal does not keep .git; a task that only commits is not.
func TestShellTaskNamesGitCode(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	_, r, root := testWorkspaceWith(t, map[string]string{"a.txt": "a\n"}, func(d *testDeps, root string) {
		withJournal(t, d, root)
		table := terminal.NewTable(terminal.Options{})
		t.Cleanup(func() { _ = table.Close() })
		d.Terminals = table
	}, shellTools, editTools)
	if out, err := exec.Command("git", "-C", root, "init", "-q", "-b", "main").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	env := call(t, r, "shell_run", map[string]any{"command": `git add a.txt && git -c user.name=t -c user.email=t@e commit -qm a && git branch -q side && echo ok`})
	for _, want := range []string{"the repository's own state, which changes_revert does not take back: refs/heads/main (created), refs/heads/side (created); ", " files under .git (COMMIT_EDITMSG, index, logs, objects)]"} {
		if !env.OK || !strings.Contains(env.Text, want) {
			t.Fatalf("a plain commit = %s %q, want it to say %q", env.Code, env.Text, want)
		}
	}
	if strings.Contains(env.Text, "git runs the commands") {
		t.Fatalf("a plain commit = %q, want no word of code git runs", env.Text)
	}
	env = call(t, r, "shell_run", map[string]any{"command": `printf '#!/bin/sh\ntouch /tmp/x\n' > .git/hooks/pre-commit && git config core.fsmonitor 'touch /tmp/y' && echo done`})
	want := "the task changed .git/config, .git/hooks/pre-commit (created): git runs the commands these name"
	if !env.OK || !strings.Contains(env.Text, want) {
		t.Fatalf("shell_run = %s %q, want it to say %q", env.Code, env.Text, want)
	}
}

// TestRevertMessages: every revert answers the person who asked with a
// message of its own (data "message"): what was reverted, or what stopped
// it and what resolves it, in words that do not assume the model's tools.
func TestRevertMessages(t *testing.T) {
	d, r, root := journaled(t, map[string]string{"src/a.txt": tenLines})
	call(t, r, "edit", map[string]any{"file_path": "src/a.txt", "search": "l2", "replace": "whale"})
	edit := newestID(t, d)
	message := func(env toolbridge.Envelope) string {
		data, _ := env.Data.(map[string]any)
		m, _ := data["message"].(string)
		return m
	}
	writeTestFile(t, root, "src/a.txt", strings.Replace(tenLines, "l2", "user", 1))
	for _, tc := range []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"conflict", map[string]any{"id": edit}, "Not reverted: src/a.txt changed after this change (in the editor, or by a later change), and reverting would overwrite that. Revert the later changes first, or edit the file by hand."},
		{"unknown entry", map[string]any{"id": "20000101T000000.000000Z-0000"}, "Not reverted: whale's history no longer holds this change (the oldest history is dropped beyond changes.maxBytes). Refresh the list, or restore the files by hand."},
	} {
		if env := call(t, r, "changes_revert", tc.input); env.OK || message(env) != tc.want {
			t.Errorf("%s: changes_revert = %s, message %q; want %q", tc.name, env.Code, message(env), tc.want)
		}
	}
	writeTestFile(t, root, "src/a.txt", strings.Replace(tenLines, "l2", "whale", 1))
	if env := call(t, r, "changes_revert", map[string]any{"id": edit}); !env.OK || message(env) != "Reverted src/a.txt." {
		t.Errorf("changes_revert = %s %q, message %q; want it done and said for a person", env.Code, env.Text, message(env))
	}
	if env := call(t, r, "changes_revert", map[string]any{"id": edit}); env.Code != toolbridge.CodeNoChange || message(env) != "Nothing to revert: the files already hold what reverting this change would restore." {
		t.Errorf("a second revert = %s, message %q; want no_change said for a person", env.Code, message(env))
	}
}

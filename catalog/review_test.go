package catalog

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// reviewing builds a workspace whose edits are reviewed (edits.review =
// mode) by p, with a journal.
func reviewing(t *testing.T, files map[string]string, mode string, p toolbridge.Prompter) (*testDeps, *toolbridge.Registry, string) {
	t.Helper()
	return testWorkspaceWith(t, files, func(d *testDeps, root string) {
		withJournal(t, d, root)
		var cfg settings.Settings
		cfg.Edits.Review = mode
		d.SetSettings(cfg)
		d.Prompter = p
	}, editTools)
}

const twoHunks = "a1\na2\na3\na4\na5\na6\na7\na8\n"

// TestReviewAcceptAll: the user sees every hunk and accepts; the change is
// applied and the result says it was reviewed.
func TestReviewAcceptAll(t *testing.T) {
	p := &scriptedPrompter{answers: []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){answer(toolbridge.PromptAnswer{OptionID: toolbridge.ReviewAccept})}}
	_, r, root := reviewing(t, map[string]string{"a.txt": twoHunks}, settings.ReviewAsk, p)
	env := call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "a2", "replace": "b2"})
	if !env.OK || !strings.Contains(env.Text, "The user reviewed the change and accepted it.") {
		t.Fatalf("edit = %s %q", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "a.txt"); got != strings.Replace(twoHunks, "a2", "b2", 1) {
		t.Errorf("a.txt = %q", got)
	}
	q := p.asked[0]
	if q.Kind != toolbridge.PromptReview || len(q.Files) != 1 || len(q.Files[0].Hunks) != 1 || q.Files[0].Before != twoHunks || !strings.Contains(q.Files[0].Hunks[0].Diff, "-a2\n+b2\n") {
		t.Errorf("review prompt = %+v", q)
	}
	if want := "Review the change to a.txt (+1 −1)"; q.Title != want {
		t.Errorf("review prompt Title = %q, want %q", q.Title, want)
	}
	if q.Timeout != settings.DefaultReviewTimeout {
		t.Errorf("review prompt Timeout = %v, want edits.reviewTimeoutMs's default %v", q.Timeout, settings.DefaultReviewTimeout)
	}
}

// TestReviewReject: a rejection with a reason applies nothing and tells the
// model not to retry the same change.
func TestReviewReject(t *testing.T) {
	p := &scriptedPrompter{answers: []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){answer(toolbridge.PromptAnswer{OptionID: toolbridge.ReviewReject, Text: "keep the old name"})}}
	d, r, root := reviewing(t, map[string]string{"a.txt": twoHunks}, settings.ReviewAsk, p)
	env := call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "a2", "replace": "b2"})
	if env.Code != toolbridge.CodeDenied || !strings.Contains(env.Text, "keep the old name") || !strings.Contains(env.Text, "do not retry the same change") {
		t.Errorf("rejected edit = %s %q", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "a.txt"); got != twoHunks {
		t.Errorf("a rejected edit changed a.txt to %q", got)
	}
	if entries, _, _ := d.Journal.List("", 0); len(entries) != 0 {
		t.Errorf("a rejected change was journaled: %+v", entries)
	}
}

// TestReviewSomeHunksOfTwoFiles: the user accepts one hunk of a.txt (a CRLF
// file) and none of b.txt; exactly that is applied, byte for byte, and the
// result names what was applied and what was rejected.
func TestReviewSomeHunksOfTwoFiles(t *testing.T) {
	crlf := strings.ReplaceAll(twoHunks, "\n", "\r\n")
	var first string
	p := &scriptedPrompter{answers: []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){func(q toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
		first = q.Files[0].Hunks[0].ID
		return toolbridge.PromptAnswer{OptionID: toolbridge.ReviewAccept, Hunks: []string{first}}, nil
	}}}
	_, r, root := reviewing(t, map[string]string{"a.txt": crlf, "b.txt": "b\n"}, settings.ReviewAsk, p)
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a1\n-a2\n+A2\n a3\n@@ -6,3 +6,3 @@\n a6\n-a7\n+A7\n a8\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n"
	env := call(t, r, "apply_patch", map[string]any{"patch": patch})
	if !env.OK {
		t.Fatalf("apply_patch = %s %q", env.Code, env.Text)
	}
	if got, want := readTestFile(t, root, "a.txt"), strings.Replace(crlf, "a2", "A2", 1); got != want {
		t.Errorf("a.txt = %q, want only the first hunk applied: %q", got, want)
	}
	if got := readTestFile(t, root, "b.txt"); got != "b\n" {
		t.Errorf("b.txt = %q, want it untouched", got)
	}
	for _, want := range []string{"applied hunk 1 of 2 in a.txt; the user rejected hunk 2", "left b.txt untouched"} {
		if !strings.Contains(env.Text, want) {
			t.Errorf("apply_patch text lacks %q: %q", want, env.Text)
		}
	}
	if len(p.asked[0].Files) != 2 || len(p.asked[0].Files[0].Hunks) != 2 {
		t.Errorf("review = %+v, want two files, two hunks in a.txt", p.asked[0].Files)
	}
}

// TestReviewTimeoutAndNoReviewer: no answer in time rejects; a session
// where no one can review applies nothing and says so.
func TestReviewTimeoutAndNoReviewer(t *testing.T) {
	p := &scriptedPrompter{answers: []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){failWith(toolbridge.ErrPromptTimeout)}}
	_, r, root := reviewing(t, map[string]string{"a.txt": twoHunks}, settings.ReviewAsk, p)
	if env := call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "a2", "replace": "b2"}); env.Code != toolbridge.CodeApprovalTimeout {
		t.Errorf("unreviewed edit = %s %q, want approval_timeout", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "a.txt"); got != twoHunks {
		t.Errorf("an unreviewed edit changed a.txt to %q", got)
	}
	_, r, _ = reviewing(t, map[string]string{"a.txt": twoHunks}, settings.ReviewAsk, nil)
	if env := call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "a2", "replace": "b2"}); env.Code != toolbridge.CodeNotConfigured {
		t.Errorf("edit with no reviewer = %s %q, want not_configured", env.Code, env.Text)
	}
}

// TestReviewedFileChangedMeanwhile: the file changes while the review is
// open; the accepted change is refused, never applied over the new text.
func TestReviewedFileChangedMeanwhile(t *testing.T) {
	var root string
	p := &scriptedPrompter{answers: []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){func(toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
		writeTestFile(t, root, "a.txt", "typed meanwhile\n"+twoHunks)
		return toolbridge.PromptAnswer{OptionID: toolbridge.ReviewAccept}, nil
	}}}
	_, r, dir := reviewing(t, map[string]string{"a.txt": twoHunks}, settings.ReviewAsk, p)
	root = dir
	env := call(t, r, "edit", map[string]any{"file_path": "a.txt", "search": "a2", "replace": "b2"})
	if env.Code != toolbridge.CodeWriteConflict || !strings.Contains(env.Text, "changed while the change was under review") {
		t.Errorf("edit of a file changed during the review = %s %q, want write_conflict", env.Code, env.Text)
	}
	if got := readTestFile(t, root, "a.txt"); got != "typed meanwhile\n"+twoHunks {
		t.Errorf("a.txt = %q, want what was typed meanwhile, untouched", got)
	}
}

// TestReviewAskOutsideOpen reviews only files not open in the editor.
func TestReviewAskOutsideOpen(t *testing.T) {
	ed := &stubEditor{saveSupported: true}
	p := &scriptedPrompter{}
	_, r, _ := testWorkspaceWith(t, map[string]string{"open.txt": twoHunks}, func(d *testDeps, root string) {
		var cfg settings.Settings
		cfg.Edits.Review = settings.ReviewAskOutsideOpen
		d.SetSettings(cfg)
		d.Prompter = p
		abs := root + "/open.txt"
		ed.docs = map[string]toolbridge.Document{abs: {Path: abs, Version: 1, Text: twoHunks}}
		d.Editor = ed
	}, editTools)
	if env := call(t, r, "edit", map[string]any{"file_path": "open.txt", "search": "a2", "replace": "b2"}); !env.OK {
		t.Fatalf("edit of an open file = %s %q, want it applied without a review", env.Code, env.Text)
	}
	if env := call(t, r, "write", map[string]any{"file_path": "closed.txt", "content": "x\n"}); env.Code != toolbridge.CodeApprovalTimeout {
		t.Errorf("write of a file not open = %s %q, want a review (the script has no answer: approval_timeout)", env.Code, env.Text)
	}
	if len(p.asked) != 1 {
		t.Errorf("%d reviews asked, want 1 (only the file not open)", len(p.asked))
	}
}

package lsp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// reviewSession starts a server whose edits are reviewed by the fake
// editor, which declares prompts.
func reviewSession(t *testing.T, files map[string]string) *session {
	t.Helper()
	return start(t, writeFiles(t, files), sessionOptions{
		experimental: map[string]any{"whale": map[string]any{"prompts": true}},
		initOptions:  map[string]any{"edits": map[string]any{"review": "ask"}},
	})
}

// reviewPrompt waits for the n-th whale/prompt and checks it is a review.
func reviewPrompt(t *testing.T, s *session, n int) map[string]any {
	t.Helper()
	waitFor(t, "a review prompt", func() bool { return len(s.ed.prompts()) >= n })
	p := s.ed.prompts()[n-1]
	if p["kind"] != "review" {
		t.Fatalf("prompt = %v, want kind review", p)
	}
	return p
}

// TestReviewOverTheWire: the editor is sent the hunks of a two-file patch
// (with each file's texts and URI), accepts the first hunk of a.txt only;
// exactly that is applied. Then a rejection with a reason, and a buffer the
// user edits while the review is open: the accepted change is refused.
func TestReviewOverTheWire(t *testing.T) {
	s := reviewSession(t, map[string]string{"a.txt": "a1\na2\na3\na4\na5\na6\na7\n", "b.txt": "b\n"})
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a1\n-a2\n+A2\n a3\n@@ -5,3 +5,3 @@\n a5\n-a6\n+A6\n a7\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n"
	done := make(chan toolbridge.Envelope, 1)
	go func() { done <- s.exec(ctxT(t), "apply_patch", map[string]any{"patch": patch}) }()
	p := reviewPrompt(t, s, 1)
	files := p["files"].([]any)
	a := files[0].(map[string]any)
	hunks := a["hunks"].([]any)
	if len(files) != 2 || len(hunks) != 2 || !strings.HasPrefix(a["uri"].(string), "file://") || a["before"] != "a1\na2\na3\na4\na5\na6\na7\n" || !strings.Contains(a["after"].(string), "A6") {
		t.Fatalf("review files = %v", files)
	}
	first := hunks[0].(map[string]any)
	if !strings.HasPrefix(first["header"].(string), "@@ -2,1 +2,1 @@") || !strings.Contains(first["diff"].(string), "-a2\n+A2\n") {
		t.Errorf("first hunk = %v", first)
	}
	if _, err := s.conn.Call(ctxT(t), "whale/prompt/answer", map[string]any{"promptId": p["promptId"], "optionId": "accept", "hunks": []string{first["id"].(string)}}, nil); err != nil {
		t.Fatal(err)
	}
	env := <-done
	if !env.OK || !strings.Contains(env.Text, "applied hunk 1 of 2 in a.txt") {
		t.Fatalf("apply_patch = %s %q", env.Code, env.Text)
	}
	if got := diskText(t, s, "a.txt"); got != "a1\nA2\na3\na4\na5\na6\na7\n" {
		t.Errorf("a.txt = %q, want only the accepted hunk", got)
	}
	if got := diskText(t, s, "b.txt"); got != "b\n" {
		t.Errorf("b.txt = %q, want it untouched", got)
	}

	go func() {
		done <- s.exec(ctxT(t), "edit", map[string]any{"file_path": "b.txt", "search": "b", "replace": "bee"})
	}()
	p = reviewPrompt(t, s, 2)
	if _, err := s.conn.Call(ctxT(t), "whale/prompt/answer", map[string]any{"promptId": p["promptId"], "optionId": "reject", "text": "keep b"}, nil); err != nil {
		t.Fatal(err)
	}
	if env := <-done; env.Code != toolbridge.CodeDenied || !strings.Contains(env.Text, "keep b") {
		t.Errorf("rejected edit = %s %q", env.Code, env.Text)
	}

	u := s.open("b.txt", "b\n", 1)
	go func() {
		done <- s.exec(ctxT(t), "edit", map[string]any{"file_path": "b.txt", "search": "b", "replace": "bee"})
	}()
	p = reviewPrompt(t, s, 3)
	s.change(u, rng(0, 0, 0, 0), "typed ", "typed b\n")
	if _, err := s.conn.Call(ctxT(t), "whale/prompt/answer", map[string]any{"promptId": p["promptId"], "optionId": "accept"}, nil); err != nil {
		t.Fatal(err)
	}
	if env := <-done; env.Code != toolbridge.CodeWriteConflict || !strings.Contains(env.Text, "changed while the change was under review") {
		t.Errorf("accepting a review of a buffer edited meanwhile = %s %q, want write_conflict", env.Code, env.Text)
	}
	if got, _ := s.ed.text(u); got != "typed b\n" {
		t.Errorf("buffer = %q, want what the user typed, untouched", got)
	}
}

// TestTheUsersOwnRevertIsNotReviewed: a revert the user asks for in the
// editor (whale/changes/revert) is applied without a review, while the
// model's changes_revert is reviewed.
func TestTheUsersOwnRevertIsNotReviewed(t *testing.T) {
	s := reviewSession(t, map[string]string{"a.txt": "a\n"})
	done := make(chan toolbridge.Envelope, 1)
	go func() { done <- s.exec(ctxT(t), "write", map[string]any{"file_path": "a.txt", "content": "b\n"}) }()
	p := reviewPrompt(t, s, 1)
	if _, err := s.conn.Call(ctxT(t), "whale/prompt/answer", map[string]any{"promptId": p["promptId"], "optionId": "accept"}, nil); err != nil {
		t.Fatal(err)
	}
	if env := <-done; !env.OK {
		t.Fatalf("write = %s %q", env.Code, env.Text)
	}
	var list struct {
		Entries []struct {
			ID string `json:"id"`
		} `json:"entries"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/changes/list", map[string]any{}, &list); err != nil || len(list.Entries) != 1 {
		t.Fatalf("whale/changes/list = %+v, %v", list, err)
	}
	var rev struct {
		OK bool `json:"ok"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/changes/revert", map[string]any{"id": list.Entries[0].ID}, &rev); err != nil || !rev.OK {
		t.Fatalf("whale/changes/revert = %+v, %v", rev, err)
	}
	if got := diskText(t, s, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q after the user's revert", got)
	}
	if n := len(s.ed.prompts()); n != 1 {
		t.Errorf("%d prompts, want 1: the user's own revert is not reviewed", n)
	}
}

// TestUnansweredReviewRejects: no answer before edits.reviewTimeoutMs
// applies nothing and says so; the approvals' shorter timeout does not
// apply to reviews. Meanwhile the call reports that it waits for the
// review, the prompt says when it expires, and a late answer is told that
// the review expired.
func TestUnansweredReviewRejects(t *testing.T) {
	s := start(t, writeFiles(t, map[string]string{"a.txt": "a\n"}), sessionOptions{
		experimental: map[string]any{"whale": map[string]any{"prompts": true}},
		progress:     true,
		initOptions:  map[string]any{"edits": map[string]any{"review": "ask", "reviewTimeoutMs": 1500}, "execBoundary": map[string]any{"approvalTimeoutMs": 100}},
	})
	started := time.Now()
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.txt", "search": "a", "replace": "b"})
	if waited := time.Since(started); waited < 1400*time.Millisecond {
		t.Errorf("the review ended after %v, before edits.reviewTimeoutMs (1.5s)", waited)
	}
	prompts := s.ed.prompts()
	if len(prompts) == 1 {
		p := prompts[0]
		expires, err := time.Parse(time.RFC3339Nano, fmt.Sprint(p["expiresAt"]))
		if p["timeoutMs"] != float64(1500) || err != nil || expires.Before(started) || expires.After(started.Add(3*time.Second)) {
			t.Errorf("review prompt timeoutMs %v, expiresAt %v (%v); want 1500 and a time about 1.5s after the call", p["timeoutMs"], p["expiresAt"], err)
		}
		var late struct{}
		_, err = s.conn.Call(ctxT(t), "whale/prompt/answer", map[string]any{"promptId": p["promptId"], "optionId": "accept"}, &late)
		if err == nil || !strings.Contains(err.Error(), "no longer open: the review expired after 1.5 seconds without an answer, so the change was not applied") {
			t.Errorf("a late answer to the review = %v, want an error that says it expired and nothing was applied", err)
		}
	}
	s.ed.mu.Lock()
	progress := slices.Clone(s.ed.progressMessages)
	s.ed.mu.Unlock()
	if !slices.Contains(progress, "begin: waiting for your review") {
		t.Errorf("progress = %q, want the call to begin it at once with \"waiting for your review\"", progress)
	}
	if env.Code != toolbridge.CodeApprovalTimeout || !strings.Contains(env.Text, "not applied") {
		t.Errorf("unanswered review = %s %q, want approval_timeout", env.Code, env.Text)
	}
	if got := diskText(t, s, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q after an unanswered review", got)
	}
	if n := len(s.ed.prompts()); n != 1 {
		t.Errorf("%d prompts, want the one review", n)
	}
}

package lsp_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// prompts returns the whale/prompt notifications so far, decoded.
func (e *fakeEditor) prompts() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []map[string]any
	for _, n := range e.whaleNT {
		if p, ok := strings.CutPrefix(n, "whale/prompt "); ok {
			var m map[string]any
			json.Unmarshal([]byte(p), &m)
			out = append(out, m)
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPromptsAreAnsweredOutOfOrder opens two prompts at once and answers
// the second first: each answer reaches its own call.
func TestPromptsAreAnsweredOutOfOrder(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{experimental: map[string]any{"whale": map[string]any{"prompts": true}}})
	results := make([]toolbridge.Envelope, 2)
	var wg sync.WaitGroup
	for i, title := range []string{"first", "second"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.exec(ctxT(t), "test_ask", map[string]any{"title": title})
		}()
	}
	waitFor(t, "two prompts", func() bool { return len(s.ed.prompts()) == 2 })
	byTitle := map[string]string{}
	for _, p := range s.ed.prompts() {
		if p["kind"] != "approval" || len(p["options"].([]any)) != 3 {
			t.Errorf("prompt = %v, want an approval with three options", p)
		}
		byTitle[p["title"].(string)] = p["promptId"].(string)
	}
	answer := func(params map[string]any) error {
		_, err := s.conn.Call(ctxT(t), "whale/prompt/answer", params, nil)
		return err
	}
	if err := answer(map[string]any{"promptId": byTitle["second"], "optionId": "deny"}); err != nil {
		t.Fatal(err)
	}
	if err := answer(map[string]any{"promptId": byTitle["first"], "cancelled": true}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	wantText(t, results[0], "first: option= canceled=true")
	wantText(t, results[1], "second: option=deny canceled=false")
	if err := answer(map[string]any{"promptId": byTitle["first"], "optionId": "deny"}); err == nil || !strings.Contains(err.Error(), "no longer open") {
		t.Errorf("answering a closed prompt = %v, want an error saying it is no longer open", err)
	}
}

func TestPromptTimeout(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{experimental: map[string]any{"whale": map[string]any{"prompts": true}}})
	env := s.exec(ctxT(t), "test_ask", map[string]any{"title": "ignored", "timeout_ms": 200})
	if env.Code != toolbridge.CodeApprovalTimeout || !strings.Contains(env.Text, "no answer before the timeout") {
		t.Fatalf("unanswered prompt = %s %q", env.Code, env.Text)
	}
}

// TestPromptFallsBackToShowMessageRequest: a client without prompts gets
// window/showMessageRequest, and its chosen action maps back to the option.
func TestPromptFallsBackToShowMessageRequest(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	s.ed.mu.Lock()
	s.ed.messagePick = "Allow for this session"
	s.ed.mu.Unlock()
	env := s.exec(ctxT(t), "test_ask", map[string]any{"title": "run rm?"})
	wantText(t, env, "option=allow_session")
	if !strings.Contains(s.tr.String(), `"window/showMessageRequest"`) {
		t.Errorf("no window/showMessageRequest on the wire")
	}
}

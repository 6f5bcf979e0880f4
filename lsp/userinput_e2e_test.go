package lsp_test

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// whaleNotes returns the params of the whale/* notifications of method.
func (e *fakeEditor) whaleNotes(method string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, n := range e.whaleNT {
		if p, ok := strings.CutPrefix(n, method+" "); ok {
			out = append(out, p)
		}
	}
	return out
}

// TestRequestUserInputThroughPrompts: a choice and a free-text question go
// out as whale/prompt and the answers come back to the right calls.
func TestRequestUserInputThroughPrompts(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{experimental: map[string]any{"whale": map[string]any{"prompts": true}}})
	results := make(chan toolbridge.Envelope, 2)
	go func() {
		results <- s.exec(ctxT(t), "request_user_input", map[string]any{"question": "Which database?", "options": []string{"PostgreSQL", "SQLite"}})
	}()
	go func() {
		results <- s.exec(ctxT(t), "request_user_input", map[string]any{"question": "Service name?"})
	}()
	waitFor(t, "two prompts", func() bool { return len(s.ed.prompts()) == 2 })
	for _, p := range s.ed.prompts() {
		params := map[string]any{"promptId": p["promptId"]}
		switch p["kind"] {
		case "choice":
			opts := p["options"].([]any)
			if len(opts) != 2 || opts[1].(map[string]any)["label"] != "SQLite" || p["title"] != "Which database?" {
				t.Errorf("choice prompt = %v", p)
			}
			params["optionId"] = opts[1].(map[string]any)["id"]
		case "text":
			params["text"] = "billing"
		default:
			t.Errorf("prompt of kind %v", p["kind"])
		}
		if _, err := s.conn.Call(ctxT(t), "whale/prompt/answer", params, nil); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	for range 2 {
		env := <-results
		got[env.Text] = env.OK
	}
	if !got["The user chose: SQLite"] || !got["The user answered: billing"] {
		t.Errorf("answers = %v, want SQLite for the choice and billing for the text", got)
	}
}

// TestRequestUserInputFallsBack: without declared prompts a choice goes
// through window/showMessageRequest, and a free-text question is
// not_configured.
func TestRequestUserInputFallsBack(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	s.ed.mu.Lock()
	s.ed.messagePick = "staging"
	s.ed.mu.Unlock()
	env := s.exec(ctxT(t), "request_user_input", map[string]any{"question": "Deploy where?", "options": []string{"staging", "production"}})
	wantText(t, env, "The user chose: staging")
	env = s.exec(ctxT(t), "request_user_input", map[string]any{"question": "Why?"})
	if env.Code != toolbridge.CodeNotConfigured {
		t.Errorf("free text without prompts = %s %q, want not_configured", env.Code, env.Text)
	}
	s.ed.mu.Lock()
	s.ed.messagePick = ""
	s.ed.mu.Unlock()
	env = s.exec(ctxT(t), "request_user_input", map[string]any{"question": "Deploy where?", "options": []string{"staging"}})
	if env.Code != toolbridge.CodeCanceled {
		t.Errorf("dismissed message = %s %q, want canceled", env.Code, env.Text)
	}
}

// TestPlanAndTodosReachTheEditor: update_plan sends whale/plan, every todo
// change sends whale/todos, and todos survive a server restart.
func TestPlanAndTodosReachTheEditor(t *testing.T) {
	state := t.TempDir() // the harness's XDG_STATE_HOME (and runtime folder)
	root := writeFiles(t, nil)
	s := start(t, root, sessionOptions{runtimeDir: state})
	env := s.exec(ctxT(t), "update_plan", map[string]any{"plan": []map[string]any{{"step": "Write the test", "status": "in_progress"}}})
	wantText(t, env, "[>] 1. Write the test")
	waitFor(t, "whale/plan", func() bool { return len(s.ed.whaleNotes("whale/plan")) == 1 })
	if got := s.ed.whaleNotes("whale/plan")[0]; got != `{"explanation":"","steps":[{"step":"Write the test","status":"in_progress"}]}` {
		t.Errorf("whale/plan = %s", got)
	}
	wantText(t, s.exec(ctxT(t), "todo_add", map[string]any{"content": "Release"}), "Added todo #1.")
	waitFor(t, "whale/todos", func() bool { return len(s.ed.whaleNotes("whale/todos")) == 1 })
	if got := s.ed.whaleNotes("whale/todos")[0]; !strings.Contains(got, `"content":"Release"`) || !strings.HasPrefix(got, `{"items":[`) {
		t.Errorf("whale/todos = %s", got)
	}

	s2 := start(t, root, sessionOptions{runtimeDir: state})
	wantText(t, s2.exec(ctxT(t), "todo_list", map[string]any{}), "[ ] #1 Release")
}

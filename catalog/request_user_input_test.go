package catalog

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// scriptedPrompter answers prompts in order from a script and records them.
type scriptedPrompter struct {
	mu      sync.Mutex
	answers []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error)
	asked   []toolbridge.Prompt
}

func (s *scriptedPrompter) Prompt(_ context.Context, p toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, p)
	if len(s.answers) == 0 {
		return toolbridge.PromptAnswer{}, toolbridge.ErrPromptTimeout
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a(p)
}

func answer(a toolbridge.PromptAnswer) func(toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	return func(toolbridge.Prompt) (toolbridge.PromptAnswer, error) { return a, nil }
}

func failWith(err error) func(toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	return func(toolbridge.Prompt) (toolbridge.PromptAnswer, error) { return toolbridge.PromptAnswer{}, err }
}

func inputRegistry(t *testing.T, p toolbridge.Prompter) *toolbridge.Registry {
	t.Helper()
	d := &testDeps{Prompter: p}
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(inputTools(d)...); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRequestUserInput(t *testing.T) {
	for _, tc := range []struct {
		name      string
		input     map[string]any
		script    []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error)
		wantCode  string
		wantText  string
		wantKinds string
	}{
		{"choice", map[string]any{"question": "Which DB?", "options": []string{"PostgreSQL", "SQLite"}},
			[]func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){answer(toolbridge.PromptAnswer{OptionID: "2"})}, toolbridge.CodeOK, "The user chose: SQLite", "choice"},
		{"text", map[string]any{"question": "Name of the service?"},
			[]func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){answer(toolbridge.PromptAnswer{Text: "billing"})}, toolbridge.CodeOK, "The user answered: billing", "text"},
		{"other then text", map[string]any{"question": "Which DB?", "options": []string{"PostgreSQL"}, "allow_free_text": true},
			[]func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){answer(toolbridge.PromptAnswer{OptionID: inputOtherID}), answer(toolbridge.PromptAnswer{Text: "MySQL"})}, toolbridge.CodeOK, "The user answered: MySQL", "choice,text"},
		{"canceled", map[string]any{"question": "Proceed?", "options": []string{"yes", "no"}},
			[]func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){answer(toolbridge.PromptAnswer{Canceled: true})}, toolbridge.CodeCanceled, "dismissed", "choice"},
		{"timeout", map[string]any{"question": "Proceed?", "timeout_ms": 1000},
			[]func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){failWith(toolbridge.ErrPromptTimeout)}, toolbridge.CodeTimeout, "did not answer within 1s", "text"},
		{"cannot show", map[string]any{"question": "Name?"},
			[]func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){failWith(toolbridge.ErrCannotPrompt)}, toolbridge.CodeNotConfigured, "cannot show", "text"},
		{"no one to ask", map[string]any{"question": "Name?"},
			[]func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){failWith(toolbridge.ErrNoOneToAsk)}, toolbridge.CodeNotConfigured, "no one can answer questions here", "text"},
		{"duplicate options", map[string]any{"question": "Q?", "options": []string{"a", "A"}},
			nil, toolbridge.CodeInvalidInput, "listed twice", ""},
		{"empty question", map[string]any{"question": "  "},
			nil, toolbridge.CodeInvalidInput, "question is empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &scriptedPrompter{answers: tc.script}
			env := call(t, inputRegistry(t, p), "request_user_input", tc.input)
			if env.Code != tc.wantCode || !strings.Contains(env.Text, tc.wantText) {
				t.Errorf("request_user_input(%v) = %s %q, want %s containing %q", tc.input, env.Code, env.Text, tc.wantCode, tc.wantText)
			}
			var kinds []string
			for _, q := range p.asked {
				kinds = append(kinds, q.Kind)
			}
			if got := strings.Join(kinds, ","); got != tc.wantKinds {
				t.Errorf("prompt kinds = %q, want %q", got, tc.wantKinds)
			}
		})
	}
}

func TestRequestUserInputOffersOtherAndTimeout(t *testing.T) {
	p := &scriptedPrompter{answers: []func(toolbridge.Prompt) (toolbridge.PromptAnswer, error){answer(toolbridge.PromptAnswer{OptionID: "1"})}}
	call(t, inputRegistry(t, p), "request_user_input", map[string]any{"question": "Q?", "options": []string{"a"}, "allow_free_text": true, "timeout_ms": 2500})
	q := p.asked[0]
	if len(q.Options) != 2 || q.Options[1].ID != inputOtherID || q.Timeout.Milliseconds() != 2500 || q.Title != "Q?" {
		t.Errorf("prompt = %+v, want the option plus Other, a 2.5s timeout and the question as title", q)
	}
}

func TestRequestUserInputWithoutEditor(t *testing.T) {
	env := call(t, inputRegistry(t, nil), "request_user_input", map[string]any{"question": "Q?"})
	if env.Code != toolbridge.CodeNotConfigured || !strings.Contains(env.Text, "ask the user in your reply") {
		t.Errorf("without a prompter = %s %q, want not_configured", env.Code, env.Text)
	}
}

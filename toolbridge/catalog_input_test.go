package toolbridge

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// scriptedPrompter answers prompts in order from a script and records them.
type scriptedPrompter struct {
	mu      sync.Mutex
	answers []func(Prompt) (PromptAnswer, error)
	asked   []Prompt
}

func (s *scriptedPrompter) Prompt(_ context.Context, p Prompt) (PromptAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, p)
	if len(s.answers) == 0 {
		return PromptAnswer{}, ErrPromptTimeout
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a(p)
}

func answer(a PromptAnswer) func(Prompt) (PromptAnswer, error) {
	return func(Prompt) (PromptAnswer, error) { return a, nil }
}

func failWith(err error) func(Prompt) (PromptAnswer, error) {
	return func(Prompt) (PromptAnswer, error) { return PromptAnswer{}, err }
}

func inputRegistry(t *testing.T, p Prompter) *Registry {
	t.Helper()
	d := &Deps{Prompter: p}
	r, err := NewRegistry(nil, inputTools(d))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRequestUserInput(t *testing.T) {
	for _, tc := range []struct {
		name      string
		input     map[string]any
		script    []func(Prompt) (PromptAnswer, error)
		wantCode  string
		wantText  string
		wantKinds string
	}{
		{"choice", map[string]any{"question": "Which DB?", "options": []string{"PostgreSQL", "SQLite"}},
			[]func(Prompt) (PromptAnswer, error){answer(PromptAnswer{OptionID: "2"})}, CodeOK, "The user chose: SQLite", "choice"},
		{"text", map[string]any{"question": "Name of the service?"},
			[]func(Prompt) (PromptAnswer, error){answer(PromptAnswer{Text: "billing"})}, CodeOK, "The user answered: billing", "text"},
		{"other then text", map[string]any{"question": "Which DB?", "options": []string{"PostgreSQL"}, "allow_free_text": true},
			[]func(Prompt) (PromptAnswer, error){answer(PromptAnswer{OptionID: inputOtherID}), answer(PromptAnswer{Text: "MySQL"})}, CodeOK, "The user answered: MySQL", "choice,text"},
		{"canceled", map[string]any{"question": "Proceed?", "options": []string{"yes", "no"}},
			[]func(Prompt) (PromptAnswer, error){answer(PromptAnswer{Canceled: true})}, CodeCanceled, "dismissed", "choice"},
		{"timeout", map[string]any{"question": "Proceed?", "timeout_ms": 1000},
			[]func(Prompt) (PromptAnswer, error){failWith(ErrPromptTimeout)}, CodeTimeout, "did not answer within 1s", "text"},
		{"cannot show", map[string]any{"question": "Name?"},
			[]func(Prompt) (PromptAnswer, error){failWith(ErrCannotPrompt)}, CodeNotConfigured, "cannot show", "text"},
		{"no one to ask", map[string]any{"question": "Name?"},
			[]func(Prompt) (PromptAnswer, error){failWith(ErrNoOneToAsk)}, CodeNotConfigured, "no one can answer questions here", "text"},
		{"duplicate options", map[string]any{"question": "Q?", "options": []string{"a", "A"}},
			nil, CodeInvalidInput, "listed twice", ""},
		{"empty question", map[string]any{"question": "  "},
			nil, CodeInvalidInput, "question is empty", ""},
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
	p := &scriptedPrompter{answers: []func(Prompt) (PromptAnswer, error){answer(PromptAnswer{OptionID: "1"})}}
	call(t, inputRegistry(t, p), "request_user_input", map[string]any{"question": "Q?", "options": []string{"a"}, "allow_free_text": true, "timeout_ms": 2500})
	q := p.asked[0]
	if len(q.Options) != 2 || q.Options[1].ID != inputOtherID || q.Timeout.Milliseconds() != 2500 || q.Title != "Q?" {
		t.Errorf("prompt = %+v, want the option plus Other, a 2.5s timeout and the question as title", q)
	}
}

func TestRequestUserInputWithoutEditor(t *testing.T) {
	env := call(t, inputRegistry(t, nil), "request_user_input", map[string]any{"question": "Q?"})
	if env.Code != CodeNotConfigured || !strings.Contains(env.Text, "ask the user in your reply") {
		t.Errorf("without a prompter = %s %q, want not_configured", env.Code, env.Text)
	}
}

package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/todos"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// promptBroker keeps the prompts that wait for an answer, so that several
// may be open at once and each answer reaches its own caller.
type promptBroker struct {
	next atomic.Int64

	mu   sync.Mutex
	open map[string]chan promptAnswerParams
}

// prompter implements toolbridge.Prompter: whale/prompt notifications when
// the client declared prompts, window/showMessageRequest otherwise (not for
// text questions).
type prompter struct{ s *Server }

func (p prompter) Prompt(ctx context.Context, q toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	s := p.s
	s.mu.Lock()
	asyncPrompts := s.caps.prompts
	s.mu.Unlock()
	if q.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, q.Timeout)
		defer cancel()
	}
	if asyncPrompts {
		return s.promptAsync(ctx, q)
	}
	if q.Kind == toolbridge.PromptText || len(q.Options) == 0 {
		return toolbridge.PromptAnswer{}, toolbridge.ErrCannotPrompt
	}
	return s.promptWithMessageRequest(ctx, q)
}

// reviewSummary is a change's hunks as text for a plain message, cut at
// reviewMessageLimit bytes.
func reviewSummary(files []toolbridge.ReviewFile) string {
	const reviewMessageLimit = 4000
	var b strings.Builder
	for _, f := range files {
		b.WriteString("\n\n" + f.Path)
		for _, h := range f.Hunks {
			b.WriteString("\n" + h.Header + "\n" + strings.TrimRight(h.Diff, "\n"))
		}
	}
	s := b.String()
	if len(s) > reviewMessageLimit {
		cut := reviewMessageLimit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "\n…"
	}
	return s
}

// timedOut tells a timeout from a cancellation of the caller.
func timedOut(ctx context.Context) error {
	if ctx.Err() == context.DeadlineExceeded {
		return toolbridge.ErrPromptTimeout
	}
	return ctx.Err()
}

func (s *Server) promptAsync(ctx context.Context, q toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	b := &s.prompts
	id := fmt.Sprintf("p%d", b.next.Add(1))
	ch := make(chan promptAnswerParams, 1)
	b.mu.Lock()
	if b.open == nil {
		b.open = map[string]chan promptAnswerParams{}
	}
	b.open[id] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.open, id)
		b.mu.Unlock()
	}()
	params := promptParams{PromptID: id, Kind: q.Kind, Title: q.Title, Detail: q.Detail, Options: promptOptionsOf(q.Options), Placeholder: q.Placeholder}
	if len(q.Files) > 0 {
		params.Files = reviewFilesOf(q.Files)
	}
	if q.Timeout > 0 {
		params.TimeoutMs = q.Timeout.Milliseconds() // lets the editor drop an expired question
	}
	if err := s.conn.Notify(ctx, methodPrompt, params); err != nil {
		return toolbridge.PromptAnswer{}, fmt.Errorf("send %s: %w", methodPrompt, err)
	}
	select {
	case r := <-ch:
		a := toolbridge.PromptAnswer{Canceled: r.Cancelled || r.Canceled}
		if r.OptionID != nil {
			a.OptionID = *r.OptionID
		}
		if r.Text != nil {
			a.Text = *r.Text
		}
		if r.Hunks != nil {
			a.Hunks = append([]string{}, *r.Hunks...)
		}
		return a, nil
	case <-ctx.Done():
		return toolbridge.PromptAnswer{}, timedOut(ctx)
	}
}

// answerPrompt handles whale/prompt/answer.
func (s *Server) answerPrompt(raw json.RawMessage) (any, error) {
	var r promptAnswerParams
	if err := json.Unmarshal(raw, &r); err != nil || r.PromptID == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, methodPromptAnswer+" needs {promptId, optionId | text | cancelled}")
	}
	b := &s.prompts
	b.mu.Lock()
	ch := b.open[r.PromptID]
	delete(b.open, r.PromptID)
	b.mu.Unlock()
	if ch == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("prompt %s is no longer open (answered, canceled or timed out)", r.PromptID))
	}
	ch <- r
	return nil, nil
}

// promptWithMessageRequest asks through window/showMessageRequest, the
// standard fallback. A null result means the user dismissed it.
func (s *Server) promptWithMessageRequest(ctx context.Context, q toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	actions := make([]map[string]string, len(q.Options))
	for i, o := range q.Options {
		actions[i] = map[string]string{"title": o.Label}
	}
	msg := q.Title
	if q.Detail != "" {
		msg += "\n\n" + q.Detail
	}
	if q.Kind == toolbridge.PromptReview {
		// No per-hunk choice in a plain message: accept or reject the whole change.
		msg = q.Title + "\n\nAccept or reject the whole change." + reviewSummary(q.Files)
	}
	typ := 3 // info
	if q.Kind == toolbridge.PromptApproval {
		typ = 2 // warning
	}
	var res *struct {
		Title string `json:"title"`
	}
	_, err := s.conn.Call(ctx, "window/showMessageRequest", map[string]any{"type": typ, "message": msg, "actions": actions}, &res)
	if err != nil {
		if ctx.Err() != nil {
			return toolbridge.PromptAnswer{}, timedOut(ctx)
		}
		return toolbridge.PromptAnswer{}, fmt.Errorf("window/showMessageRequest: %w", err)
	}
	if res == nil {
		return toolbridge.PromptAnswer{Canceled: true}, nil
	}
	for _, o := range q.Options {
		if o.Label == res.Title {
			return toolbridge.PromptAnswer{OptionID: o.ID}, nil
		}
	}
	return toolbridge.PromptAnswer{Canceled: true}, nil
}

// notifier implements toolbridge.Notifier over the connection.
type notifier struct{ s *Server }

// PlanChanged sends methodPlan.
func (n notifier) PlanChanged(p toolbridge.Plan) {
	params := planParams{Explanation: p.Explanation, Steps: make([]planStep, 0, len(p.Steps))}
	for _, st := range p.Steps {
		params.Steps = append(params.Steps, planStep{Step: st.Step, Status: st.Status})
	}
	n.notify(methodPlan, params)
}

// TodosChanged sends methodTodos.
func (n notifier) TodosChanged(items []todos.Item) {
	params := todosParams{Items: make([]todoItem, 0, len(items))}
	for _, it := range items {
		params.Items = append(params.Items, todoItem{ID: it.ID, Content: it.Content, Status: it.Status, Priority: it.Priority, Created: it.Created, Updated: it.Updated})
	}
	n.notify(methodTodos, params)
}

// ChangesJournaled sends methodChangesChanged.
func (n notifier) ChangesJournaled(latest string) {
	n.notify(methodChangesChanged, changesChangedParams{Latest: latest})
}

func (n notifier) notify(method string, params any) {
	if err := n.s.conn.Notify(context.Background(), method, params); err != nil {
		n.s.log.Warn("notification not sent", "method", method, "err", err)
	}
}

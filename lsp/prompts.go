package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// promptBroker keeps the prompts that wait for an answer, so that several
// may be open at once and each answer reaches its own caller.
type promptBroker struct {
	next atomic.Int64

	mu   sync.Mutex
	open map[string]chan promptAnswerParams
	// closed says, for the prompts that closed lately (at most
	// closedPrompts of them, oldest forgotten first), why: what a late
	// answer is told.
	closed      map[string]string
	closedOrder []string
}

// closedPrompts bounds how many closed prompts the broker remembers.
const closedPrompts = 256

// close forgets the open prompt id and remembers why it closed.
func (b *promptBroker) close(id, why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.open, id)
	if b.closed == nil {
		b.closed = map[string]string{}
	}
	if _, ok := b.closed[id]; !ok {
		b.closedOrder = append(b.closedOrder, id)
	}
	b.closed[id] = why
	if len(b.closedOrder) > closedPrompts {
		delete(b.closed, b.closedOrder[0])
		b.closedOrder = b.closedOrder[1:]
	}
}

// waitingFor is what a call reports as its progress while the user has a
// question of kind open.
func waitingFor(kind string) string {
	switch kind {
	case toolbridge.PromptReview:
		return "waiting for your review"
	case toolbridge.PromptApproval:
		return "waiting for your approval"
	}
	return "waiting for your answer"
}

// plainDuration is d for a person: "30 minutes", "1 minute", "1.5 seconds".
func plainDuration(d time.Duration) string {
	unit, n := "second", d.Seconds()
	if d >= time.Minute {
		unit, n = "minute", d.Minutes()
	}
	text := strconv.FormatFloat(math.Round(n*10)/10, 'f', -1, 64)
	if text != "1" {
		unit += "s"
	}
	return text + " " + unit
}

// closedWhy is what a late answer to a prompt of kind is told, by how the
// prompt ended.
func closedWhy(kind string, timeout time.Duration, ctx context.Context, answered bool) string {
	thing := "the question"
	outcome := ""
	switch kind {
	case toolbridge.PromptReview:
		thing, outcome = "the review", ", so the change was not applied; ask the assistant to propose it again"
	case toolbridge.PromptApproval:
		thing, outcome = "the approval", ", so the program was not run; ask the assistant to run the command again"
	}
	switch {
	case answered:
		return thing + " was already answered"
	case ctx.Err() == context.DeadlineExceeded && timeout > 0:
		return fmt.Sprintf("%s expired after %s without an answer%s", thing, plainDuration(timeout), outcome)
	}
	return thing + " was withdrawn: the call that asked it ended (it was canceled, or the same question was answered in another prompt)"
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
	answered := false
	defer func() { b.close(id, closedWhy(q.Kind, q.Timeout, ctx, answered)) }()
	params := promptParams{PromptID: id, Kind: q.Kind, Title: q.Title, Detail: q.Detail, Options: promptOptionsOf(q.Options), Placeholder: q.Placeholder}
	if len(q.Files) > 0 {
		params.Files = reviewFilesOf(q.Files)
	}
	if q.Timeout > 0 {
		// Lets the editor show the time left, and drop an expired question.
		params.TimeoutMs = q.Timeout.Milliseconds()
		expires := time.Now().Add(q.Timeout).Local()
		params.ExpiresAt = &expires
	}
	if err := s.conn.Notify(ctx, methodPrompt, params); err != nil {
		return toolbridge.PromptAnswer{}, fmt.Errorf("send %s: %w", methodPrompt, err)
	}
	reportProgress(ctx, waitingFor(q.Kind))
	select {
	case r := <-ch:
		answered = true
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
	why := b.closed[r.PromptID]
	b.mu.Unlock()
	if ch == nil {
		// A late answer (a notification left on screen, a review hidden
		// past its time) is told what became of its question.
		if why == "" {
			why = "it was answered, canceled or timed out"
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("prompt %s is no longer open: %s", r.PromptID, why))
	}
	ch <- r
	return nil, nil
}

// promptWithMessageRequest asks through window/showMessageRequest, the
// standard fallback. A null result means the user dismissed it.
func (s *Server) promptWithMessageRequest(ctx context.Context, q toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	actions := make([]messageActionItem, len(q.Options))
	for i, o := range q.Options {
		actions[i] = messageActionItem{Title: o.Label}
	}
	msg := q.Title
	if q.Detail != "" {
		msg += "\n\n" + q.Detail
	}
	if q.Kind == toolbridge.PromptReview {
		// No per-hunk choice in a plain message: accept or reject the whole change.
		msg = q.Title + "\n\nAccept or reject the whole change." + reviewSummary(q.Files)
	}
	typ := messageInfo
	if q.Kind == toolbridge.PromptApproval {
		typ = messageWarning
	}
	reportProgress(ctx, waitingFor(q.Kind))
	var res *messageActionItem
	_, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, showMessageRequestParams{Actions: actions, Message: msg, Type: typ}, &res)
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
func (n notifier) TodosChanged(items []toolbridge.TodoItem) {
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

package acpfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// Prompter returns the toolbridge.Prompter that asks the editor with
// session/request_permission, in the session the agent last worked in:
// approvals of the exec boundary (allow once, allow for the session, deny)
// and reviews of a change before it is written (accept, reject). Other
// kinds of question cannot be asked over ACP (toolbridge.ErrCannotPrompt).
func (p *Proxy) Prompter() toolbridge.Prompter { return permissionPrompter{p} }

type permissionPrompter struct{ p *Proxy }

// optionKinds maps whale's answer options to ACP's permission option kinds.
var optionKinds = map[string]string{
	toolbridge.ApproveOnce:    "allow_once",
	toolbridge.ApproveSession: "allow_always",
	toolbridge.ApproveDeny:    "reject_once",
	toolbridge.ReviewAccept:   "allow_once",
	toolbridge.ReviewReject:   "reject_once",
}

func (pp permissionPrompter) Prompt(ctx context.Context, q toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	p := pp.p
	if q.Kind != toolbridge.PromptApproval && q.Kind != toolbridge.PromptReview {
		return toolbridge.PromptAnswer{}, toolbridge.ErrCannotPrompt
	}
	sessionID, _ := p.lastSession.Load().(string)
	if sessionID == "" || p.editor == nil {
		return toolbridge.PromptAnswer{}, toolbridge.ErrNoOneToAsk
	}
	var options []map[string]string
	for _, o := range q.Options {
		kind := optionKinds[o.ID]
		if kind == "" {
			return toolbridge.PromptAnswer{}, toolbridge.ErrCannotPrompt
		}
		options = append(options, map[string]string{"optionId": o.ID, "name": o.Label, "kind": kind})
	}
	kind, detail := "execute", q.Detail
	var content []any
	if q.Kind == toolbridge.PromptReview {
		kind = "edit"
		for _, f := range q.Files {
			content = append(content, map[string]any{"type": "diff", "path": f.Path, "oldText": f.Before, "newText": f.After})
		}
	}
	if detail != "" {
		content = append(content, map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": detail}})
	}
	p.mu.Lock()
	p.ownSeq++
	callID := fmt.Sprintf("whale-ask-%d", p.ownSeq)
	p.mu.Unlock()
	params := map[string]any{
		"sessionId": sessionID,
		"toolCall":  map[string]any{"toolCallId": callID, "title": strings.TrimSpace(q.Title), "kind": kind, "status": "pending", "content": content},
		"options":   options,
	}
	ctx, done := p.sessionContext(ctx, sessionID)
	defer done()
	if q.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, q.Timeout)
		defer cancel()
	}
	raw, err := p.askEditor(ctx, "session/request_permission", params)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return toolbridge.PromptAnswer{}, toolbridge.ErrPromptTimeout
	case errors.Is(err, context.Canceled):
		return toolbridge.PromptAnswer{Canceled: true}, nil
	case err != nil:
		return toolbridge.PromptAnswer{}, err
	}
	var res struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return toolbridge.PromptAnswer{}, fmt.Errorf("the editor's answer to session/request_permission: %w", err)
	}
	if res.Outcome.Outcome != "selected" {
		return toolbridge.PromptAnswer{Canceled: true}, nil
	}
	return toolbridge.PromptAnswer{OptionID: res.Outcome.OptionID}, nil
}

package toolbridge

import (
	"context"
	"errors"
	"time"
)

// Prompt kinds: an approval (options allow_once, allow_session, deny), a
// choice among options, free text, or the review of a proposed change
// (options accept and reject; Files holds its hunks).
const (
	PromptApproval = "approval"
	PromptChoice   = "choice"
	PromptText     = "text"
	PromptReview   = "review"
)

// Review option ids: accept the change (all of it, or PromptAnswer.Hunks),
// or reject it (with PromptAnswer.Text as the reason, when given).
const (
	ReviewAccept = "accept"
	ReviewReject = "reject"
)

// ReviewFile is one file of a change under review: its text before and
// after (for a diff view; empty where the file does not exist or is not
// text) and its hunks.
type ReviewFile struct {
	Path          string // absolute
	Before, After string
	Hunks         []ReviewHunk
}

// ReviewHunk is one contiguous change of a file: ID names it in the answer,
// Header is its "@@ -a,b +c,d @@" line, Diff its unified-diff lines (with a
// little context).
type ReviewHunk struct {
	ID, Header, Diff string
}

// Approval option ids.
const (
	ApproveOnce    = "allow_once"
	ApproveSession = "allow_session"
	ApproveDeny    = "deny"
)

// PromptOption is one answer the user can pick.
type PromptOption struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Prompt is a question for the user in the editor.
type Prompt struct {
	Kind        string
	Title       string
	Detail      string
	Options     []PromptOption
	Placeholder string
	// Files is the change under review (Kind PromptReview).
	Files []ReviewFile
	// Timeout bounds the wait; zero waits until ctx ends.
	Timeout time.Duration
}

// PromptAnswer is the user's answer: the picked option, the typed text, or
// Canceled when the user dismissed the question.
type PromptAnswer struct {
	OptionID string
	Text     string
	Canceled bool
	// Hunks, for an accepted review, are the ids of the hunks accepted;
	// nil accepts them all.
	Hunks []string
}

// Errors of Prompter.Prompt.
var (
	// ErrPromptTimeout: no answer came before the prompt's timeout.
	ErrPromptTimeout = errors.New("no answer before the timeout")
	// ErrCannotPrompt: the client has no way to show this kind of prompt.
	ErrCannotPrompt = errors.New("the editor cannot show this question")
	// ErrNoOneToAsk: there is no person behind this front end at all (the
	// command line), so no kind of prompt can be answered.
	ErrNoOneToAsk = errors.New("no one is there to answer")
)

// Prompter asks the user a question through the editor and waits for the
// answer. Several prompts may be open at once; each answer reaches its own
// caller. It is nil when no editor is attached.
type Prompter interface {
	Prompt(ctx context.Context, p Prompt) (PromptAnswer, error)
}

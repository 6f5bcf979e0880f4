package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed request_user_input.md
var requestUserInputDoc string

// Limits of request_user_input.
const (
	inputDefaultTimeout = 5 * time.Minute
	inputMaxTimeout     = time.Hour
	inputMaxOptions     = 20
	// inputOtherID is the option that turns a choice into a typed answer
	// when allow_free_text is set.
	inputOtherID = "other"
)

type requestUserInputInput struct {
	Question      string   `json:"question"`
	Options       []string `json:"options"`
	AllowFreeText bool     `json:"allow_free_text"`
	TimeoutMs     int      `json:"timeout_ms"`
}

// RequestUserInput is request_user_input: a question to the user, with
// choices or free text, asked through asker (nil: no one can be asked).
func RequestUserInput(asker toolbridge.Prompter) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "request_user_input",
		Description: requestUserInputDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupInput,
		InputSchema: toolbridge.Object([]string{"question"}, map[string]*toolbridge.Schema{
			"question":        toolbridge.Str("The question, in one or two sentences the user can answer without more context."),
			"options":         toolbridge.Arr("Answers to choose from (short labels). Omit for a free-text question.", toolbridge.Str("An answer label.")),
			"allow_free_text": toolbridge.Bool("With options: also let the user type an answer of their own (default false)."),
			"timeout_ms":      toolbridge.Int("How long to wait for the answer (default 300000, at most 3600000).", 1000),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in requestUserInputInput) (toolbridge.Result, error) {
		q := strings.TrimSpace(in.Question)
		if q == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "question is empty; write the question you want the user to answer")
		}
		options, err := inputOptions(in.Options)
		if err != nil {
			return toolbridge.Result{}, err
		}
		timeout := inputDefaultTimeout
		if in.TimeoutMs > 0 {
			timeout = min(time.Duration(in.TimeoutMs)*time.Millisecond, inputMaxTimeout)
		}
		if asker == nil {
			return toolbridge.Result{}, cannotAsk()
		}
		p := toolbridge.Prompt{Kind: toolbridge.PromptText, Title: q, Timeout: timeout, Placeholder: "Type your answer"}
		if len(options) > 0 {
			p.Kind = toolbridge.PromptChoice
			p.Placeholder = ""
			p.Options = options
			if in.AllowFreeText {
				p.Options = append(p.Options, toolbridge.PromptOption{ID: inputOtherID, Label: "Other (type an answer)"})
			}
		}
		start := time.Now()
		a, err := asker.Prompt(ctx, p)
		if err != nil {
			return toolbridge.Result{}, promptFailure(err, p.Kind, timeout)
		}
		if a.Canceled {
			return toolbridge.Result{}, dismissed()
		}
		if a.Text == "" && a.OptionID == inputOtherID {
			// The user wants to type: ask again, for text, in the time left.
			left := timeout - time.Since(start)
			if left <= 0 {
				return toolbridge.Result{}, promptFailure(toolbridge.ErrPromptTimeout, toolbridge.PromptText, timeout)
			}
			a, err = asker.Prompt(ctx, toolbridge.Prompt{Kind: toolbridge.PromptText, Title: q, Placeholder: "Type your answer", Timeout: left})
			if err != nil {
				return toolbridge.Result{}, promptFailure(err, toolbridge.PromptText, timeout)
			}
			if a.Canceled {
				return toolbridge.Result{}, dismissed()
			}
		}
		if a.Text != "" || len(options) == 0 {
			if len(options) > 0 && !in.AllowFreeText {
				// The client typed an answer to a choice: pass it on, but say so.
				return toolbridge.Result{Text: fmt.Sprintf("The user did not pick an option and answered in their own words: %s", a.Text), Data: map[string]any{"answer": a.Text, "source": "text"}}, nil
			}
			return toolbridge.Result{Text: "The user answered: " + a.Text, Data: map[string]any{"answer": a.Text, "source": "text"}}, nil
		}
		for i, o := range options {
			if o.ID == a.OptionID {
				return toolbridge.Result{Text: "The user chose: " + o.Label, Data: map[string]any{"answer": o.Label, "option_index": i, "source": "option"}}, nil
			}
		}
		return toolbridge.Result{}, fmt.Errorf("the editor answered with option %q, which was not offered", a.OptionID)
	})
}

// inputOptions turns labels into prompt options with ids "1", "2", …
func inputOptions(labels []string) ([]toolbridge.PromptOption, error) {
	if len(labels) > inputMaxOptions {
		return nil, toolbridge.Fail(toolbridge.CodeInvalidInput, "%d options are too many to choose from (at most %d); group them, or ask a free-text question", len(labels), inputMaxOptions)
	}
	seen := map[string]bool{}
	var out []toolbridge.PromptOption
	for i, l := range labels {
		l = strings.TrimSpace(l)
		if l == "" {
			return nil, toolbridge.Fail(toolbridge.CodeInvalidInput, "options[%d] is empty; give every option a label, or leave it out", i)
		}
		if seen[strings.ToLower(l)] {
			return nil, toolbridge.Fail(toolbridge.CodeInvalidInput, "option %s is listed twice; give each option once", excerpt.Quote(l))
		}
		seen[strings.ToLower(l)] = true
		out = append(out, toolbridge.PromptOption{ID: strconv.Itoa(i + 1), Label: l})
	}
	return out, nil
}

func cannotAsk() *toolbridge.Failure {
	return toolbridge.Fail(toolbridge.CodeNotConfigured, "no one can answer questions here: whale-ls runs without an editor that shows questions (for example from the command line); ask the user in your reply instead, or carry on with a stated assumption")
}

func dismissed() *toolbridge.Failure {
	return toolbridge.Fail(toolbridge.CodeCanceled, "the user dismissed the question without answering; do not ask the same question again at once — carry on with what you know, or explain in your reply what you need")
}

// promptFailure maps a Prompter error for a prompt of kind to the Failure
// the model reads.
func promptFailure(err error, kind string, timeout time.Duration) error {
	switch {
	case errors.Is(err, toolbridge.ErrNoOneToAsk) || (errors.Is(err, toolbridge.ErrCannotPrompt) && kind == toolbridge.PromptChoice):
		return cannotAsk()
	case errors.Is(err, toolbridge.ErrPromptTimeout):
		return toolbridge.Fail(toolbridge.CodeTimeout, "the user did not answer within %s; they may be away — carry on with a reasonable default and say which one you chose, or ask again later", timeout.Round(time.Second))
	case errors.Is(err, toolbridge.ErrCannotPrompt):
		return toolbridge.Fail(toolbridge.CodeNotConfigured, "the editor cannot show this kind of question (free-text questions need an editor that declared whale prompts); ask with options instead, or ask in your reply")
	case errors.Is(err, context.Canceled):
		return err
	}
	return err
}

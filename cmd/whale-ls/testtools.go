//go:build whaletest

package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// This file is compiled only into the test binary (go build -tags
// whaletest): a release build has no test tools at all.

// stuckStarted is the line test_stuck writes to stderr when it starts.
const stuckStarted = "test_stuck: started"

type testWaitInput struct {
	Ms int `json:"ms"`
}

type testAskInput struct {
	Title     string `json:"title"`
	TimeoutMs int    `json:"timeout_ms"`
}

// testTools are the tools end-to-end tests use to hold a call open on
// purpose (cancellation, progress) or to ask an approval; a test binary
// registers them only when testToolsEnv is set.
func testTools(env catalog.Env) []toolbridge.Tool {
	if os.Getenv(testToolsEnv) == "" {
		return nil
	}
	ask := toolbridge.Define(toolbridge.Spec{
		Name:        "test_ask",
		Description: "Test tool: asks the user an approval question and reports the answer.",
		ReadOnly:    true,
		Group:       "test",
		InputSchema: toolbridge.Object([]string{"title"}, map[string]*toolbridge.Schema{
			"title":      toolbridge.Str("question"),
			"timeout_ms": toolbridge.Int("timeout", 0),
		}),
	}, func(ctx context.Context, in testAskInput) (toolbridge.Result, error) {
		if env.Prompter == nil {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNotConfigured, "no editor to ask")
		}
		a, err := env.Prompter.Prompt(ctx, toolbridge.Prompt{
			Kind: toolbridge.PromptApproval, Title: in.Title,
			Options: []toolbridge.PromptOption{{ID: toolbridge.ApproveOnce, Label: "Allow once"}, {ID: toolbridge.ApproveSession, Label: "Allow for this session"}, {ID: toolbridge.ApproveDeny, Label: "Deny"}},
			Timeout: time.Duration(in.TimeoutMs) * time.Millisecond,
		})
		if err != nil {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeApprovalTimeout, "%v", err)
		}
		return toolbridge.Result{Text: fmt.Sprintf("%s: option=%s canceled=%v", in.Title, a.OptionID, a.Canceled)}, nil
	})
	stuck := toolbridge.Define(toolbridge.Spec{
		Name:        "test_stuck",
		Description: "Test tool: waits ms milliseconds and ignores cancellation (a tool that does not honour its context).",
		ReadOnly:    true,
		Group:       "test",
		InputSchema: toolbridge.Object([]string{"ms"}, map[string]*toolbridge.Schema{"ms": toolbridge.Int("milliseconds", 0)}),
	}, func(_ context.Context, in testWaitInput) (toolbridge.Result, error) {
		fmt.Fprintln(os.Stderr, stuckStarted) // tests wait for this line before they stop whale-ls
		time.Sleep(time.Duration(in.Ms) * time.Millisecond)
		return toolbridge.Result{Text: fmt.Sprintf("stuck for %d ms", in.Ms)}, nil
	})
	return []toolbridge.Tool{ask, stuck, toolbridge.Define(toolbridge.Spec{
		Name:        "test_wait",
		Description: "Test tool: waits ms milliseconds or until the call is canceled.",
		ReadOnly:    true,
		Group:       "test",
		InputSchema: toolbridge.Object([]string{"ms"}, map[string]*toolbridge.Schema{"ms": toolbridge.Int("milliseconds", 0)}),
	}, func(ctx context.Context, in testWaitInput) (toolbridge.Result, error) {
		select {
		case <-time.After(time.Duration(in.Ms) * time.Millisecond):
			return toolbridge.Result{Text: fmt.Sprintf("waited %d ms", in.Ms)}, nil
		case <-ctx.Done():
			return toolbridge.Result{}, ctx.Err()
		}
	})}
}

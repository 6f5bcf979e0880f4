package main

import (
	"context"
	"fmt"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// testToolsEnv, when set, adds testTools to the server's catalog. End-to-end
// tests use them to hold a call open on purpose (cancellation, progress);
// they are never registered otherwise.
const testToolsEnv = "WHALE_LS_TEST_TOOLS"

type testWaitInput struct {
	Ms int `json:"ms"`
}

func testTools() []toolbridge.Tool {
	return []toolbridge.Tool{toolbridge.Define(toolbridge.Spec{
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

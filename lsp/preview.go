package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/catalog"
)

// preview answers whale/preview: what a tool call the model asked for will
// do, for the host's approval (catalog.PreviewCall). Nothing is written.
func (s *Server) preview(ctx context.Context, raw json.RawMessage) (any, error) {
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	if sess == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "there is no workspace session to preview tool calls in")
	}
	var p previewParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s params: %v", methodPreview, err))
	}
	tool := strings.TrimPrefix(strings.TrimSpace(p.Tool), "whale.")
	if tool == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, methodPreview+" needs the tool's name (tool)")
	}
	pv := catalog.PreviewCall(ctx, catalog.PreviewOptions{Registry: sess.Registry, Commits: sess.Commits, Workspace: sess.Workspace, Gate: sess.Gate}, tool, p.Input)
	return previewResultOf(pv), nil
}

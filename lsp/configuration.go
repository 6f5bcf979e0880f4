package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// didChangeConfiguration handles workspace/didChangeConfiguration: the
// settings object (the client's "whale" section) replaces the session's
// settings.
func (s *Server) didChangeConfiguration(ctx context.Context, params json.RawMessage) error {
	var p protocol.DidChangeConfigurationParams
	if err := protocol.Unmarshal(params, &p); err != nil {
		return err
	}
	s.applySettings(ctx, json.RawMessage(p.Settings))
	return nil
}

// applySettings installs new settings; unknown keys and missing folders are
// reported in the log and to the client's log, and are not fatal.
func (s *Server) applySettings(ctx context.Context, raw json.RawMessage) {
	settings, unknown, err := toolbridge.ParseSettings(raw)
	if err != nil {
		s.logToClient(ctx, 2, "whale-ls: settings not applied: "+err.Error())
		return
	}
	if len(unknown) > 0 {
		s.logToClient(ctx, 2, "whale-ls: unknown settings ignored: "+strings.Join(unknown, ", "))
	}
	s.mu.Lock()
	deps := s.deps
	s.mu.Unlock()
	if missing := deps.SetSettings(settings); len(missing) > 0 {
		s.logToClient(ctx, 2, "whale-ls: these read.approvedPaths or skills.paths do not exist: "+strings.Join(missing, ", "))
	}
}

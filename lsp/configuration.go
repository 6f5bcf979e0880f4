package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/whale-ls/whale-ls/settings"
	"go.lsp.dev/protocol"
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
	cfg, unknown, err := settings.Parse(raw)
	if err != nil {
		s.logToClient(ctx, messageWarning, "whale-ls: settings not applied: "+err.Error())
		return
	}
	if len(unknown) > 0 {
		s.logToClient(ctx, messageWarning, "whale-ls: unknown settings ignored: "+strings.Join(unknown, ", "))
	}
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	if sess == nil {
		return
	}
	if missing := sess.Apply(cfg); len(missing) > 0 {
		s.logToClient(ctx, messageWarning, "whale-ls: these read.approvedPaths or skills.paths do not exist: "+strings.Join(missing, ", "))
	}
}

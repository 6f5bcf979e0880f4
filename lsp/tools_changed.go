package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
	"go.lsp.dev/protocol"
)

// registrationTimeout bounds the wait for the client's answer to
// client/registerCapability.
const registrationTimeout = 10 * time.Second

var registrationSeq atomic.Int64

// watchTools tells the client about tools added to the registry after
// initialize: a whale/toolsChanged notification, and, when the client
// declared capabilities.workspace.executeCommand.dynamicRegistration, a
// client/registerCapability of workspace/executeCommand for the new
// whale.<tool> commands (the static list of initialize cannot grow).
// Commands run whether or not the registration succeeds.
func (s *Server) watchTools(registry *toolbridge.Registry, initParams json.RawMessage) {
	var p struct {
		Capabilities struct {
			Workspace struct {
				ExecuteCommand struct {
					DynamicRegistration bool `json:"dynamicRegistration"`
				} `json:"executeCommand"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(initParams, &p)
	dynamic := p.Capabilities.Workspace.ExecuteCommand.DynamicRegistration
	registry.OnToolsAdded(func(added []toolbridge.Spec) {
		s.mu.Lock()
		attached := s.attached
		s.mu.Unlock()
		if attached != nil {
			attached.ToolsChanged() // MCP front ends refresh their list
		}
		ctx := context.Background()
		if err := s.conn.Notify(ctx, methodToolsChanged, toolsChangedParams{Added: added, Count: len(registry.Names())}); err != nil {
			s.log.Warn(methodToolsChanged+" not sent", "err", err)
		}
		if !dynamic {
			return
		}
		commands := make([]string, len(added))
		for i, spec := range added {
			commands[i] = "whale." + spec.Name
		}
		// Not awaited: the tool call that activated the tools must not wait
		// on the client, which may be busy with its result.
		go func() {
			ctx, cancel := context.WithTimeout(ctx, registrationTimeout)
			defer cancel()
			params := registrationParams{Registrations: []registration{{
				ID:              fmt.Sprintf("whale-tools-%d", registrationSeq.Add(1)),
				Method:          protocol.MethodWorkspaceExecuteCommand,
				RegisterOptions: executeCommandRegistrationOptions{Commands: commands},
			}}}
			if _, err := s.conn.Call(ctx, protocol.MethodClientRegisterCapability, params, nil); err != nil {
				s.log.Warn("client/registerCapability for new tools failed; the commands still run", "commands", commands, "err", err)
			}
		}()
	})
}

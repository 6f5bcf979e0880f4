package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// initializeParams is the part of InitializeParams the server reads.
type initializeParams struct {
	RootURI          *string `json:"rootUri"`
	RootPath         *string `json:"rootPath"`
	WorkspaceFolders []struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	} `json:"workspaceFolders"`
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	Capabilities          struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		Window struct {
			WorkDoneProgress   bool            `json:"workDoneProgress"`
			ShowMessageRequest json.RawMessage `json:"showMessage"`
		} `json:"window"`
		Experimental json.RawMessage `json:"experimental"`
	} `json:"capabilities"`
}

// whaleCaps is capabilities.experimental.whale.
type whaleCaps struct {
	Terminals     bool `json:"terminals"`
	Prompts       bool `json:"prompts"`
	SaveDocuments bool `json:"saveDocuments"`
}

func (s *Server) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already sent; send it once per session")
	}
	s.mu.Unlock()
	var p initializeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "initialize params: "+err.Error())
	}
	roots := rootsOf(p, s.opts.DefaultRoot)
	ws, err := workspace.NewSet(roots)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("cannot open the workspace folders %v: %v", roots, err))
	}
	var exp struct {
		Whale whaleCaps `json:"whale"`
	}
	_ = json.Unmarshal(p.Capabilities.Experimental, &exp)
	caps := clientCaps{
		workDoneProgress: p.Capabilities.Window.WorkDoneProgress,
		terminals:        exp.Whale.Terminals,
		prompts:          exp.Whale.Prompts,
		saveDocuments:    exp.Whale.SaveDocuments,
		showMessageReq:   true,
	}
	deps := &toolbridge.Deps{Workspace: ws, Editor: &editorBridge{s: s}, Prompter: prompter{s}, Notifier: notifier{s}, Reads: &toolbridge.ReadLedger{}, Log: s.log}
	var sink terminal.Sink // nil when the editor does not show terminals
	if caps.terminals {
		sink = terminalSink{s}
	}
	deps.Terminals = terminal.NewTable(terminal.Options{Sink: sink, Supervisor: s.opts.Supervisor})
	deps.ExecGate = deps.NewExecGate()
	settings, unknown, err := toolbridge.ParseSettings(p.InitializationOptions)
	if err != nil {
		s.log.Warn("initializationOptions not applied", "err", err)
	}
	if len(unknown) > 0 {
		s.log.Warn("unknown settings ignored", "keys", strings.Join(unknown, ", "))
	}
	if missing := deps.SetSettings(settings); len(missing) > 0 {
		s.log.Warn("approved or skill paths do not exist", "paths", strings.Join(missing, ", "))
	}
	catalog := toolbridge.Catalog(deps)
	if s.opts.ExtraTools != nil {
		catalog = append(catalog, s.opts.ExtraTools(deps)...)
	}
	registry, err := toolbridge.NewRegistry(s.log, catalog)
	if err != nil {
		deps.Close()
		deps.Terminals.Close()
		ws.Close()
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	enc := chooseEncoding(p.Capabilities.General.PositionEncodings)

	s.mu.Lock()
	s.deps, s.registry, s.caps, s.enc, s.state = deps, registry, caps, enc, stateRunning
	s.mu.Unlock()
	s.watchTools(registry, raw) // tools activated later (tools_changed.go)
	// Let MCP front ends of the same user reach this session.
	if ln, err := attach.Listen(roots, registry, attach.ListenOptions{Version: s.opts.Version, Log: s.log}); err != nil {
		s.log.Warn("MCP front ends cannot attach to this session", "err", err)
	} else {
		s.mu.Lock()
		s.attached = ln
		s.mu.Unlock()
	}
	s.log.Info("initialized", "roots", strings.Join(roots, ", "), "positionEncoding", enc, "tools", len(registry.Names()))

	commands := make([]string, 0, len(registry.Names()))
	for _, n := range registry.Names() {
		commands = append(commands, "whale."+n)
	}
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": enc,
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    2, // incremental
				"save":      map[string]any{"includeText": false},
			},
			"executeCommandProvider": map[string]any{"commands": commands, "workDoneProgress": true},
			"experimental": map[string]any{"whale": map[string]any{
				"version":      s.opts.Version,
				"tools":        len(commands),
				"execBoundary": deps.ExecGate.State(),
			}},
		},
		"serverInfo": map[string]any{"name": "whale-ls", "version": s.opts.Version},
	}, nil
}

// rootsOf picks the workspace folders: workspaceFolders, else rootUri, else
// rootPath, else the default (the process's working folder).
func rootsOf(p initializeParams, fallback string) []string {
	var roots []string
	for _, f := range p.WorkspaceFolders {
		if path, err := uriToPath(f.URI); err == nil {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 && p.RootURI != nil {
		if path, err := uriToPath(*p.RootURI); err == nil {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 && p.RootPath != nil && *p.RootPath != "" {
		roots = append(roots, *p.RootPath)
	}
	if len(roots) == 0 {
		if fallback == "" {
			fallback, _ = os.Getwd()
		}
		roots = append(roots, fallback)
	}
	return roots
}

// exit handles the exit notification: Run returns, with exit code 0 when
// shutdown came first.
func (s *Server) exit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateShutdown {
		s.exitCode = 0
	}
	select {
	case <-s.exited:
	default:
		close(s.exited)
	}
}

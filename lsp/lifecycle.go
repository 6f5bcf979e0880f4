package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
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

// initializeResult is the result of initialize. It is the server's own
// type rather than protocol.InitializeResult so that its JSON stays what the
// server has always sent: these fields only, in this order.
type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

type serverCapabilities struct {
	ExecuteCommandProvider executeCommandOptions   `json:"executeCommandProvider"`
	Experimental           serverExperimental      `json:"experimental"`
	PositionEncoding       string                  `json:"positionEncoding"`
	TextDocumentSync       textDocumentSyncOptions `json:"textDocumentSync"`
}

// executeCommandOptions lists whale.<tool> for every tool of the catalog.
type executeCommandOptions struct {
	Commands         []string `json:"commands"`
	WorkDoneProgress bool     `json:"workDoneProgress"`
}

type serverExperimental struct {
	Whale whaleServerCaps `json:"whale"`
}

// textDocumentSyncOptions: open/close, incremental changes, saves without
// text.
type textDocumentSyncOptions struct {
	Change    protocol.TextDocumentSyncKind `json:"change"`
	OpenClose bool                          `json:"openClose"`
	Save      saveOptions                   `json:"save"`
}

type saveOptions struct {
	IncludeText bool `json:"includeText"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
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
	var exp struct {
		Whale whaleClientCaps `json:"whale"`
	}
	_ = json.Unmarshal(p.Capabilities.Experimental, &exp)
	caps := clientCaps{
		workDoneProgress: p.Capabilities.Window.WorkDoneProgress,
		terminals:        exp.Whale.Terminals,
		prompts:          exp.Whale.Prompts,
		saveDocuments:    exp.Whale.SaveDocuments,
		languageFeatures: exp.Whale.LanguageFeatures,
		showMessageReq:   true,
	}
	var sink terminal.Sink // nil when the editor does not show terminals
	if caps.terminals {
		sink = terminalSink{s}
	}
	cfg, unknown, err := settings.Parse(p.InitializationOptions)
	if err != nil {
		s.log.Warn("initializationOptions not applied", "err", err)
	}
	if len(unknown) > 0 {
		s.log.Warn("unknown settings ignored", "keys", strings.Join(unknown, ", "))
	}
	var lang toolbridge.Language // nil unless the editor answers language features
	if caps.languageFeatures {
		lang = language{s}
	}
	sess, err := session.New(session.Options{
		Roots: roots, Editor: &editorBridge{s: s}, Prompter: prompter{s}, Notifier: notifier{s}, Language: lang,
		Terminal: terminal.Options{Sink: sink, Supervisor: s.opts.Supervisor},
		Settings: cfg, ExtraTools: s.opts.ExtraTools, Log: s.log, FileIndex: true,
	})
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("cannot start a session in the workspace folders %v: %v", roots, err))
	}
	registry := sess.Registry
	enc := chooseEncoding(p.Capabilities.General.PositionEncodings)

	s.mu.Lock()
	s.session, s.registry, s.caps, s.enc, s.state = sess, registry, caps, enc, stateRunning
	s.mu.Unlock()
	s.watchTools(registry, raw) // tools activated later (tools_changed.go)
	// Let MCP front ends of the same user reach this session, and the ACP
	// proxy its commit path (whale/file/*).
	if ln, err := attach.Listen(roots, registry, attach.ListenOptions{Version: s.opts.Version, Log: s.log, Status: attachStatus(sess), Files: sess.Commits}); err != nil {
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
	return initializeResult{
		Capabilities: serverCapabilities{
			ExecuteCommandProvider: executeCommandOptions{Commands: commands, WorkDoneProgress: true},
			Experimental: serverExperimental{Whale: whaleServerCaps{
				ExecBoundary: execBoundaryStateOf(sess.Gate.State()),
				Tools:        len(commands),
				Version:      s.opts.Version,
			}},
			PositionEncoding: enc,
			TextDocumentSync: textDocumentSyncOptions{
				Change:    protocol.TextDocumentSyncKindIncremental,
				OpenClose: true,
				Save:      saveOptions{IncludeText: false},
			},
		},
		ServerInfo: serverInfo{Name: "whale-ls", Version: s.opts.Version},
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

// Package mcpfront serves whale's tool catalog over the Model Context
// Protocol, for AI chats that speak MCP rather than LSP. Every catalog tool
// becomes an MCP tool with the same name, description and input schema; a
// call goes through the same Dispatch (repair, validation, Envelope) of a
// Backend, and its result is the Envelope's text, with isError for a failed
// call and the whole Envelope as structured content.
//
// The Backend is either this process's own registry (standalone: disk edits,
// approvals by rule) or a running language server reached through package
// attach (edits land in the editor's buffers). The package does not decide
// which; the command line does.
package mcpfront

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// Backend runs tools: the local registry or an attached server.
type Backend interface {
	Tools(ctx context.Context) ([]toolbridge.Spec, error)
	Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error)
}

// Local adapts a Registry (this process's own session) to a Backend.
type Local struct{ Registry *toolbridge.Registry }

// Tools lists the registry's frozen specs.
func (l Local) Tools(context.Context) ([]toolbridge.Spec, error) { return l.Registry.Specs(), nil }

// Call dispatches one call.
func (l Local) Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error) {
	return l.Registry.Dispatch(ctx, toolbridge.Call{Name: name, Input: input}), nil
}

// Server is an MCP server over a Backend.
type Server struct {
	backend Backend
	mcp     *mcp.Server
	log     *slog.Logger

	mu    sync.Mutex
	known map[string]bool // tools already added
}

// New builds the MCP server and adds the backend's tools.
func New(ctx context.Context, b Backend, version, instructions string, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		backend: b,
		log:     log,
		known:   map[string]bool{},
		mcp: mcp.NewServer(&mcp.Implementation{Name: "whale-ls", Version: version}, &mcp.ServerOptions{
			Instructions: instructions,
		}),
	}
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Refresh adds the backend's tools that are not served yet; the SDK then
// sends notifications/tools/list_changed to connected clients. Specs never
// change, so tools already served are left as they are.
func (s *Server) Refresh(ctx context.Context) error {
	specs, err := s.backend.Tools(ctx)
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, spec := range specs {
		if s.known[spec.Name] {
			continue
		}
		s.known[spec.Name] = true
		schema, err := json.Marshal(spec.InputSchema)
		if err != nil {
			return err
		}
		tool := &mcp.Tool{
			Name:        spec.Name,
			Description: spec.Description,
			InputSchema: json.RawMessage(schema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: spec.ReadOnly},
		}
		name := spec.Name
		s.mcp.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.call(ctx, name, req)
		})
	}
	return nil
}

func (s *Server) call(ctx context.Context, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var input json.RawMessage
	if req.Params != nil {
		input = req.Params.Arguments
	}
	env, err := s.backend.Call(ctx, name, input)
	if err != nil {
		env = toolbridge.Envelope{Code: toolbridge.CodeInternal, Text: fmt.Sprintf("the whale-ls session that runs the tools did not answer (%v); call the tool again, or restart the MCP server", err)}
	}
	text := env.Text
	if !env.OK && env.Code != "" {
		text = env.Code + ": " + text
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		IsError:           !env.OK,
		StructuredContent: env,
	}, nil
}

// Run serves the MCP protocol on t until the client leaves or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

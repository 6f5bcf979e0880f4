package catalog

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/mcphost"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// Limits of the MCP group.
const (
	mcpStartTimeout       = 20 * time.Second
	mcpDefaultResults     = 5
	mcpMaxResults         = 20
	mcpToolPrefix         = "mcp__"
	mcpMaxListedCandidate = 40
	// mcpMaxToolName is the longest tool name OpenAI, Anthropic and VS Code
	// accept.
	mcpMaxToolName = 64
	// mcpHashLen is the length of the hash that ends a shortened name.
	mcpHashLen = 6
	// mcpMaxServerName leaves a shortened name room for a few characters
	// of the tool's own name: mcp__ + server + __ + tool + _ + hash.
	mcpMaxServerName = 40
	// mcpMaxDescription is the longest tool description every provider
	// accepts.
	mcpMaxDescription = toolbridge.MaxDescriptionBytes
)

// MCPOptions is what the MCP group needs: the workspace its servers start
// in, the mcp.servers setting, the registry tool_search adds the tools it
// activates to, and where to register the servers' stop.
type MCPOptions struct {
	Workspace *workspace.Set
	Settings  func() settings.Settings
	Registry  *toolbridge.Registry
	OnClose   func(stop func())
	Log       *slog.Logger
}

// MCPTools is the MCP group: the tools of every non-deferred server in
// mcp.servers (started now, so that their tools join the catalog), and
// tool_search when at least one server is deferred (a call by a deferred
// tool's exact name activates it too: findDeferred). Servers stop when the
// session closes (o.OnClose). Changes to mcp.servers take effect in the
// next session.
func MCPTools(o MCPOptions) []toolbridge.Tool {
	env := Env{Settings: o.Settings, Log: o.Log}.withDefaults()
	log := env.Log
	configs, err := parseMCPServers(env.Settings().MCP.Servers)
	if err != nil {
		log.Warn("mcp.servers not applied", "err", err)
		return nil
	}
	if len(configs) == 0 {
		return nil
	}
	dir := ""
	roots := realRoots(o.Workspace)
	if len(roots) > 0 {
		dir = roots[0]
	}
	g := &mcpGroup{registry: o.Registry, host: mcphost.New(configs, mcphost.Options{Log: log, Dir: dir, Roots: roots, Version: "whale-ls", StartTimeout: mcpStartTimeout})}
	if o.OnClose != nil {
		o.OnClose(g.host.Close)
	}

	var eager, deferred []string
	for _, name := range g.host.Servers() {
		if configs[name].Deferred {
			deferred = append(deferred, name)
		} else {
			eager = append(eager, name)
		}
	}
	var tools []toolbridge.Tool
	names := map[string]bool{}
	for _, list := range g.listTools(context.Background(), eager) {
		if list.err != nil {
			log.Warn("MCP server not available; its tools are left out of the catalog", "server", list.server, "err", list.err)
			continue
		}
		for _, info := range list.tools {
			t := g.tool(info)
			if names[t.Spec.Name] { // servers named a and a__b can make one name: the first wins
				log.Warn("MCP tool left out: another tool has the same catalog name", "server", info.Server, "tool", info.Name, "name", t.Spec.Name)
				continue
			}
			names[t.Spec.Name] = true
			tools = append(tools, t)
		}
	}
	if len(deferred) > 0 {
		g.deferred = deferred
		tools = append(tools, g.searchTool())
	}
	return tools
}

// parseMCPServers decodes mcp.servers: {name: {command, args, env, cwd, deferred}}.
func parseMCPServers(raw json.RawMessage) (map[string]mcphost.ServerConfig, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var configs map[string]mcphost.ServerConfig
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&configs); err != nil {
		return nil, fmt.Errorf("mcp.servers must map server names to {command, args, env, cwd, deferred}: %w", err)
	}
	for name, c := range configs {
		if c.Command == "" {
			return nil, fmt.Errorf("mcp.servers.%s has no command", name)
		}
		if mcpName(name) != name {
			return nil, fmt.Errorf("mcp.servers: the server name %q may use only letters, digits, - and _", name)
		}
		if len(name) > mcpMaxServerName {
			return nil, fmt.Errorf("mcp.servers: the server name %q is %d characters; use at most %d, so that its tools' names fit the %d characters models accept", name, len(name), mcpMaxServerName, mcpMaxToolName)
		}
	}
	return configs, nil
}

// mcpName keeps letters, digits, - and _ (what editors accept in tool
// names) and turns everything else into _.
func mcpName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// mcpToolName is the catalog name of a server's tool: mcp__<server>__<tool>
// when that has at most 64 characters, all letters, digits, - and _.
// Otherwise it is a readable prefix of that name, with every other
// character replaced by _, then _ and the first 6 hex digits of the SHA-256
// of server and tool: the same name every time, and different names for
// tools that read the same once shortened or replaced (dot.name and
// dot_name). The server name is checked by parseMCPServers.
func mcpToolName(server, tool string) string {
	full := mcpFullName(server, tool)
	clean := mcpToolPrefix + server + "__" + mcpName(tool)
	if clean == full && len(full) <= mcpMaxToolName {
		return full
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	hash := hex.EncodeToString(sum[:])[:mcpHashLen]
	return clean[:min(len(clean), mcpMaxToolName-1-mcpHashLen)] + "_" + hash
}

// mcpFullName is mcp__<server>__<tool> with the tool's name as its server
// spells it. Calls may use it when the catalog name differs (Tool.Aliases).
func mcpFullName(server, tool string) string {
	return mcpToolPrefix + server + "__" + tool
}

// mcpNames are the names by which a server's tool is called: its catalog
// name first, then its full name if that differs.
func mcpNames(info mcphost.ToolInfo) []string {
	name, full := mcpToolName(info.Server, info.Name), mcpFullName(info.Server, info.Name)
	if full == name {
		return []string{name}
	}
	return []string{name, full}
}

// mcpGroup ties the catalog to one Host.
type mcpGroup struct {
	registry *toolbridge.Registry // where tool_search adds what it activates
	host     *mcphost.Host
	deferred []string // deferred server names, sorted
}

type serverTools struct {
	server string
	tools  []mcphost.ToolInfo
	err    error
}

// listTools starts the servers (in parallel) and lists their tools.
func (g *mcpGroup) listTools(ctx context.Context, servers []string) []serverTools {
	out := make([]serverTools, len(servers))
	var wg sync.WaitGroup
	for i, name := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools, err := g.host.Tools(ctx, name)
			out[i] = serverTools{server: name, tools: tools, err: err}
		}()
	}
	wg.Wait()
	return out
}

// tool turns one MCP tool into a catalog tool whose calls go to the server:
// named by mcpToolName (its full name is an alias), its description cut to
// what every provider accepts, its schema as the server wrote it
// (mcpSchema), and its input sent as the model wrote it (mcpInput).
func (g *mcpGroup) tool(info mcphost.ToolInfo) toolbridge.Tool {
	names := mcpNames(info)
	name := names[0]
	desc := strings.TrimSpace(info.Description)
	if desc == "" {
		desc = fmt.Sprintf("Tool %s of the MCP server %s.", info.Name, info.Server)
	}
	note := fmt.Sprintf("\n\n(MCP tool %q of the server %q.)", info.Name, info.Server)
	if len(desc)+len(note) > mcpMaxDescription {
		desc, _ = cutText(desc, max(0, mcpMaxDescription-len(note)-len(" …")))
		desc = strings.TrimSpace(desc) + " …"
	}
	spec := toolbridge.Spec{Name: name, Description: desc + note, InputSchema: mcphost.ImportSchema(info.InputSchema), ReadOnly: info.ReadOnly, Group: toolbridge.GroupMCP, Title: info.Title}
	if info.Destructive != nil || info.Idempotent || info.OpenWorld != nil {
		spec.Hints = &toolbridge.Hints{Destructive: info.Destructive, Idempotent: info.Idempotent, OpenWorld: info.OpenWorld}
	}
	return toolbridge.Tool{Spec: spec, Aliases: names[1:], PrepareInput: toolbridge.ImportedInput(spec), Run: func(ctx context.Context, input json.RawMessage) (toolbridge.Result, error) {
		callCtx := ctx
		if toolbridge.WantsProgress(ctx) {
			callCtx = mcphost.WithProgress(ctx, func(p mcphost.Progress) { toolbridge.ReportProgress(ctx, progressText(info.Server, p)) })
		}
		res, err := g.host.Call(callCtx, info.Server, info.Name, input)
		if err != nil {
			return toolbridge.Result{}, mcpFailure(ctx, name, info, err)
		}
		data := map[string]any{"server": info.Server, "tool": info.Name}
		if res.Structured != nil {
			data["structured"] = res.Structured
		}
		if res.IsError {
			return toolbridge.Result{}, &toolbridge.Failure{Code: toolbridge.CodeServerError, Data: data, Text: fmt.Sprintf("the MCP tool %s answered with an error (this is the tool's own answer, not a whale-ls fault): %s — read the message, then fix the arguments or take another way", name, strings.TrimSpace(res.Text))}
		}
		text := res.Text
		if text == "" {
			text = "(the tool returned no content)"
		}
		var media []json.RawMessage
		for _, c := range res.Media {
			if b, err := json.Marshal(c); err == nil {
				media = append(media, b)
			}
		}
		return toolbridge.Result{Text: text, Data: data, Media: media}, nil
	}}
}

// progressText is a server's progress notification as one line for
// people: "everything: 2 of 5", with the server's message when it sent one.
func progressText(server string, p mcphost.Progress) string {
	step := fmt.Sprintf("%g", p.Progress)
	if p.Total > 0 {
		step = fmt.Sprintf("%g of %g", p.Progress, p.Total)
	}
	if msg := strings.TrimSpace(p.Message); msg != "" {
		return fmt.Sprintf("%s: %s (%s)", server, msg, step)
	}
	return server + ": " + step
}

// mcpFailure maps a Host error to what the model reads.
func mcpFailure(ctx context.Context, name string, info mcphost.ToolInfo, err error) error {
	var stopped *mcphost.StoppedError
	var refused *mcphost.ToolError
	switch {
	case errors.As(err, &stopped) && stopped.Restarted:
		return toolbridge.Fail(toolbridge.CodeNetworkError, "the MCP server %s stopped during the call to %s (%v) and was restarted; call the tool again if repeating it is safe (it may have done part of its work)", info.Server, name, stopped.Err)
	case errors.As(err, &stopped):
		return toolbridge.Fail(toolbridge.CodeNetworkError, "the MCP server %s stopped during the call to %s (%v) for the second time and is now unavailable for this session; use other tools, and tell the user the server needs fixing", info.Server, name, stopped.Err)
	case errors.Is(err, mcphost.ErrUnavailable):
		return toolbridge.Fail(toolbridge.CodeNetworkError, "the MCP server %s is unavailable for this session (%v); use other tools, and tell the user the server needs fixing", info.Server, err)
	case errors.As(err, &refused) && refused.Code == -32602:
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "the MCP server %s rejected the arguments of %s: %s; check them against the tool's input schema and call again", info.Server, name, refused.Message)
	case errors.As(err, &refused):
		return toolbridge.Fail(toolbridge.CodeServerError, "the MCP server %s failed to run %s: %s (JSON-RPC error %d); the server failed, not the arguments: take another way, and tell the user if it keeps failing", info.Server, name, refused.Message, refused.Code)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return toolbridge.Fail(toolbridge.CodeNetworkError, "calling %s on the MCP server %s failed: %v; try again, or use other tools", name, info.Server, err)
}

// oneLine folds a description to its first line, at most 300 bytes.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s, _ = cutText(s, 300)
	return s
}

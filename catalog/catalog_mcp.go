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
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/mcphost"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed tool_search.md
var toolSearchDoc string

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

// mcpTools is the MCP group: the tools of every non-deferred server in
// mcp.servers (started now, so that their tools join the catalog), and
// tool_search when at least one server is deferred (a call by a deferred
// tool's exact name activates it too: findDeferred). Servers stop when the
// session closes (Deps.Close). Changes to mcp.servers take effect in the
// next session.
func mcpTools(d *Deps) []toolbridge.Tool {
	configs, err := parseMCPServers(d.Settings().MCP.Servers)
	if err != nil {
		d.logger().Warn("mcp.servers not applied", "err", err)
		return nil
	}
	if len(configs) == 0 {
		return nil
	}
	dir := ""
	if d.Workspace != nil && len(d.Workspace.Roots()) > 0 {
		dir = d.Workspace.Roots()[0].Real
	}
	g := &mcpGroup{d: d, host: mcphost.New(configs, mcphost.Options{Log: d.logger(), Dir: dir, Version: "whale-ls", StartTimeout: mcpStartTimeout})}
	d.OnClose(g.host.Close)

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
			d.logger().Warn("MCP server not available; its tools are left out of the catalog", "server", list.server, "err", list.err)
			continue
		}
		for _, info := range list.tools {
			t := g.tool(info)
			if names[t.Spec.Name] { // servers named a and a__b can make one name: the first wins
				d.logger().Warn("MCP tool left out: another tool has the same catalog name", "server", info.Server, "tool", info.Name, "name", t.Spec.Name)
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
	d        *Deps
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
	spec := toolbridge.Spec{Name: name, Description: desc + note, InputSchema: toolbridge.ImportSchema(info.InputSchema), ReadOnly: info.ReadOnly, Group: toolbridge.GroupMCP}
	return toolbridge.Tool{Spec: spec, Aliases: names[1:], PrepareInput: toolbridge.ImportedInput(spec), Run: func(ctx context.Context, input json.RawMessage) (toolbridge.Result, error) {
		res, err := g.host.Call(ctx, info.Server, info.Name, input)
		if err != nil {
			return toolbridge.Result{}, mcpFailure(ctx, name, info, err)
		}
		data := map[string]any{"server": info.Server, "tool": info.Name}
		if res.Structured != nil {
			data["structured"] = res.Structured
		}
		if res.IsError {
			return toolbridge.Result{}, &toolbridge.Failure{Code: toolbridge.CodeInternal, Data: data, Text: fmt.Sprintf("the MCP tool %s answered with an error (this is the tool's own answer, not a whale-ls fault): %s — read the message, then fix the arguments or take another way", name, strings.TrimSpace(res.Text))}
		}
		text := res.Text
		if text == "" {
			text = "(the tool returned no content)"
		}
		return toolbridge.Result{Text: text, Data: data}, nil
	}}
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
		return toolbridge.Fail(toolbridge.CodeInternal, "the MCP server %s could not run %s: %s (JSON-RPC error %d); try another way", info.Server, name, refused.Message, refused.Code)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return toolbridge.Fail(toolbridge.CodeNetworkError, "calling %s on the MCP server %s failed: %v; try again, or use other tools", name, info.Server, err)
}

type toolSearchInput struct {
	Query      string `json:"query"`
	MaxResults int    `json:"max_results"`
}

// searchTool builds tool_search over the deferred servers.
func (g *mcpGroup) searchTool() toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "tool_search",
		Description: toolSearchDoc + "\n\nDeferred MCP servers here: " + strings.Join(g.deferred, ", ") + ".",
		Group:       toolbridge.GroupMCP,
		InputSchema: toolbridge.Object([]string{"query"}, map[string]*toolbridge.Schema{
			"query":       toolbridge.Str("Words describing the tool you need (what it acts on and what it does), or exact tool names separated by commas."),
			"max_results": toolbridge.Int(fmt.Sprintf("Most tools to activate (default %d, at most %d).", mcpDefaultResults, mcpMaxResults), 1),
		}),
	}
	t := toolbridge.Define(spec, func(ctx context.Context, in toolSearchInput) (toolbridge.Result, error) {
		q := strings.TrimSpace(in.Query)
		if q == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "query is empty; describe the tool you need, e.g. \"create github issue\"")
		}
		n := toolbridge.Bounded(in.MaxResults, mcpDefaultResults, mcpMaxResults)
		lists := g.listTools(ctx, g.deferred)
		if ctx.Err() != nil {
			return toolbridge.Result{}, ctx.Err()
		}
		byName := map[string]mcphost.ToolInfo{}
		aka := map[string][]string{} // catalog name → every name a query may give
		var docs []mcphost.Document
		var problems []string
		for _, l := range lists {
			if l.err != nil {
				problems = append(problems, fmt.Sprintf("server %s is not available (%v)", l.server, l.err))
				continue
			}
			for _, t := range l.tools {
				full := mcpToolName(t.Server, t.Name)
				if _, dup := byName[full]; dup {
					continue // two names that read the same here: the first wins, as in findDeferred
				}
				byName[full] = t
				aka[full] = append(mcpNames(t), t.Name)
				docs = append(docs, mcphost.Document{ID: full, Name: t.Server + " " + t.Name, Description: t.Description})
			}
		}
		hits, allExact := exactTools(q, docs, aka)
		if !allExact {
			for _, h := range mcphost.Rank(q, docs, n) {
				if !slices.Contains(hits, h.ID) {
					hits = append(hits, h.ID)
				}
			}
		}
		if len(hits) > n {
			hits = hits[:n]
		}
		note := ""
		if len(problems) > 0 {
			note = "\nNot searched: " + strings.Join(problems, "; ") + "."
		}
		if len(hits) == 0 {
			var names []string
			for _, doc := range docs {
				names = append(names, doc.ID)
			}
			sort.Strings(names)
			text := fmt.Sprintf("No deferred tool matches %s.", excerpt.Quote(q))
			if len(names) > 0 {
				if len(names) > mcpMaxListedCandidate {
					names = append(names[:mcpMaxListedCandidate], fmt.Sprintf("and %d more", len(names)-mcpMaxListedCandidate))
				}
				text += " The deferred tools are: " + strings.Join(names, ", ") + ". Search again with words from their names, or give exact names separated by commas."
			}
			return toolbridge.Result{Text: text + note, Data: map[string]any{"tools": []any{}}}, nil
		}
		var tools []toolbridge.Tool
		for _, id := range hits {
			tools = append(tools, g.tool(byName[id]))
		}
		reg := toolbridge.RegistryFrom(ctx)
		activated := false
		if reg != nil {
			if _, err := reg.Add(tools...); err != nil {
				return toolbridge.Result{}, err
			}
			activated = true
		}
		var b strings.Builder
		if activated {
			fmt.Fprintf(&b, "Found %d tool(s); they are now active and can be called by name:\n", len(tools))
		} else {
			fmt.Fprintf(&b, "Found %d tool(s) (not activated: this front end cannot add tools):\n", len(tools))
		}
		var found []map[string]any
		for _, t := range tools {
			info := byName[t.Spec.Name]
			schema, _ := json.Marshal(t.Spec.InputSchema)
			fmt.Fprintf(&b, "\n%s\n  %s\n  input schema: %s\n", t.Spec.Name, oneLine(info.Description), schema)
			found = append(found, map[string]any{"name": t.Spec.Name, "description": info.Description, "inputSchema": t.Spec.InputSchema, "server": info.Server})
		}
		b.WriteString(note)
		return toolbridge.Result{Text: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"tools": found, "activated": activated}}, nil
	})
	t.FindDeferred = g.findDeferred
	return t
}

// findDeferred finds a deferred server's tool by its exact catalog name
// (mcpToolName) or full name, starting the server if needed, so that a call by
// that name activates the tool as a search would have (Tool.FindDeferred).
// A name that no deferred server's prefix fits is not its business; a
// known server without such a tool is unknown_tool with that server's
// closest names; a server that cannot start is network_error.
func (g *mcpGroup) findDeferred(ctx context.Context, name string) (toolbridge.Tool, bool, error) {
	var owners []string
	for _, server := range g.deferred {
		if strings.HasPrefix(name, mcpToolPrefix+server+"__") {
			owners = append(owners, server) // several only when names overlap, as a and a__b do
		}
	}
	if len(owners) == 0 {
		return toolbridge.Tool{}, false, nil
	}
	var names, near, problems []string
	for _, l := range g.listTools(ctx, owners) {
		if l.err != nil {
			problems = append(problems, l.err.Error())
			continue
		}
		// Closeness is judged on the part after mcp__<server>__, which the
		// candidates share with the name.
		prefix := mcpToolPrefix + l.server + "__"
		var bare []string
		for _, info := range l.tools {
			full := mcpToolName(info.Server, info.Name)
			if slices.Contains(mcpNames(info), name) {
				return g.tool(info), true, nil
			}
			names = append(names, full)
			bare = append(bare, strings.TrimPrefix(full, prefix))
		}
		sort.Strings(bare)
		for _, b := range toolbridge.Closest(strings.TrimPrefix(name, prefix), bare, 3) {
			near = append(near, prefix+b)
		}
	}
	if ctx.Err() != nil {
		return toolbridge.Tool{}, false, ctx.Err()
	}
	server := strings.Join(owners, " or ")
	if len(problems) > 0 && len(names) == 0 {
		return toolbridge.Tool{}, false, toolbridge.Fail(toolbridge.CodeNetworkError, "%s belongs to the deferred MCP server %s, which is not available (%s); use other tools, and tell the user the server needs fixing", excerpt.Text(name), server, strings.Join(problems, "; "))
	}
	sort.Strings(names)
	near = near[:min(len(near), 3)]
	text := fmt.Sprintf("there is no tool named %s: the deferred MCP server %s has no such tool", excerpt.Quote(name), server)
	switch {
	case len(near) > 0:
		text += fmt.Sprintf("; did you mean %s? Call it by that exact name, or ", strings.Join(toolbridge.QuoteAll(near), " or "))
	case len(names) > 0:
		listed := names
		if len(listed) > mcpMaxListedCandidate {
			listed = append(listed[:mcpMaxListedCandidate:mcpMaxListedCandidate], fmt.Sprintf("and %d more", len(names)-mcpMaxListedCandidate))
		}
		text += "; its tools are " + strings.Join(listed, ", ") + ". Call one by its exact name, or "
	default:
		text += " (it lists no tools); "
	}
	text += "use tool_search to find a tool by what it does"
	if len(problems) > 0 {
		text += " (not available: " + strings.Join(problems, "; ") + ")"
	}
	return toolbridge.Tool{}, false, &toolbridge.Failure{Code: toolbridge.CodeUnknownTool, Text: text, Data: map[string]any{"closest": near, "server": server}}
}

// exactTools returns the tools named exactly in a comma-separated query,
// by catalog name, the part of it after mcp__<server>__, or any of the
// names in aka (the full name, the server's own tool name); all reports
// whether every part of the query named a tool (then no ranking is needed).
func exactTools(q string, docs []mcphost.Document, aka map[string][]string) (out []string, all bool) {
	all = true
	for _, part := range strings.Split(q, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		found := false
		for _, d := range docs {
			_, bare, _ := strings.Cut(strings.TrimPrefix(d.ID, mcpToolPrefix), "__")
			if d.ID == part || bare == part || slices.Contains(aka[d.ID], part) {
				found = true
				if !slices.Contains(out, d.ID) {
					out = append(out, d.ID)
				}
			}
		}
		all = all && found
	}
	return out, all && len(out) > 0
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

package catalog

import (
	"context"

	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/mcphost"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed tool_search.md
var toolSearchDoc string

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
		found, err := g.search(ctx, q, toolbridge.Bounded(in.MaxResults, mcpDefaultResults, mcpMaxResults))
		if err != nil {
			return toolbridge.Result{}, err
		}
		note := ""
		if len(found.problems) > 0 {
			note = "\nNot searched: " + strings.Join(found.problems, "; ") + "."
		}
		if len(found.hits) == 0 {
			return toolbridge.Result{Text: noToolMatches(q, g.deferred, found.candidates) + note, Data: map[string]any{"tools": []any{}, "match": false, "servers": g.deferred}}, nil
		}
		var tools []toolbridge.Tool
		for _, id := range found.hits {
			tools = append(tools, g.tool(found.byName[id]))
		}
		activated := false
		if g.registry != nil {
			if _, err := g.registry.Add(tools...); err != nil {
				return toolbridge.Result{}, err
			}
			activated = true
		}
		return foundTools(tools, found.byName, activated, note), nil
	})
	t.FindDeferred = g.findDeferred
	return t
}

// toolMatches is what a tool_search found among the deferred servers' tools.
type toolMatches struct {
	hits       []string                    // catalog names, best first
	byName     map[string]mcphost.ToolInfo // catalog name → the server's tool
	candidates []mcphost.Candidate         // every tool searched
	problems   []string                    // servers that could not be searched
}

// search lists the deferred servers' tools (starting them if needed) and
// picks up to n for q: exact names first, then the best ranked.
func (g *mcpGroup) search(ctx context.Context, q string, n int) (toolMatches, error) {
	lists := g.listTools(ctx, g.deferred)
	if ctx.Err() != nil {
		return toolMatches{}, ctx.Err()
	}
	m := toolMatches{byName: map[string]mcphost.ToolInfo{}}
	aka := map[string][]string{} // catalog name → every name a query may give
	for _, l := range lists {
		if l.err != nil {
			m.problems = append(m.problems, fmt.Sprintf("server %s is not available (%v)", l.server, l.err))
			continue
		}
		for _, t := range l.tools {
			full := mcpToolName(t.Server, t.Name)
			if _, dup := m.byName[full]; dup {
				continue // two names that read the same here: the first wins, as in findDeferred
			}
			m.byName[full] = t
			aka[full] = append(mcpNames(t), t.Name)
			m.candidates = append(m.candidates, mcphost.Candidate{ID: full, Name: t.Server + " " + t.Name, Description: t.Description})
		}
	}
	hits, allExact := exactTools(q, m.candidates, aka)
	if !allExact {
		for _, h := range mcphost.Rank(q, m.candidates, n) {
			if !slices.Contains(hits, h.ID) {
				hits = append(hits, h.ID)
			}
		}
	}
	if len(hits) > n {
		hits = hits[:n]
	}
	m.hits = hits
	return m, nil
}

// noToolMatches says that nothing matched q, nothing was activated, which
// deferred servers were searched, and lists their tools (at most
// mcpMaxListedCandidate).
func noToolMatches(q string, servers []string, candidates []mcphost.Candidate) string {
	var names []string
	for _, c := range candidates {
		names = append(names, c.ID)
	}
	sort.Strings(names)
	text := fmt.Sprintf("No match: no deferred tool matches %s, and none was activated. The deferred MCP servers are: %s.", excerpt.Quote(q), strings.Join(servers, ", "))
	if len(names) > 0 {
		if len(names) > mcpMaxListedCandidate {
			names = append(names[:mcpMaxListedCandidate], fmt.Sprintf("and %d more", len(names)-mcpMaxListedCandidate))
		}
		text += " The deferred tools are: " + strings.Join(names, ", ") + ". Search again with words from their names, or give exact names separated by commas."
	}
	return text
}

// foundTools is tool_search's result: each tool with its description and
// input schema, and whether they are active now.
func foundTools(tools []toolbridge.Tool, byName map[string]mcphost.ToolInfo, activated bool, note string) toolbridge.Result {
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
		found = append(found, map[string]any{"name": t.Spec.Name, "description": info.Description, "input_schema": t.Spec.InputSchema, "server": info.Server})
	}
	b.WriteString(note)
	return toolbridge.Result{Text: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"tools": found, "activated": activated}}
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
func exactTools(q string, docs []mcphost.Candidate, aka map[string][]string) (out []string, all bool) {
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

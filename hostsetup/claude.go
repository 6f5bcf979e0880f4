package hostsetup

import "path/filepath"

// Claude Code: MCP servers in .mcp.json (project; approved by
// enabledMcpjsonServers) or ~/.claude.json (user); a permission deny rule
// without a specifier removes the tool from what the model is offered.
// $CLAUDE_CONFIG_DIR moves ~/.claude.json and ~/.claude/settings.json.
var claudeDeny = ClaudeOff

// ClaudeOff are the tools that setup (and whale-ls acp, for one run, as
// claude-agent-acp's disallowedTools) keeps from the model.
var ClaudeOff = []string{"Bash", "PowerShell", "Monitor", "Edit", "Write", "NotebookEdit"}

var claude = &Host{
	Name:   "claude",
	Title:  "Claude Code",
	Tested: "2.1.332",
	Off:    claudeDeny,
	Kept:   []string{"Read", "Glob", "Grep", "WebFetch", "WebSearch", "Agent (subagents get the same deny rules)", "TodoWrite", "Skill"},
	Start:  "claude (its allow rule for whale's tools counts once you have trusted the project folder)",
	plan:   claudePlan,
}

func claudePlan(o Options) ([]change, error) {
	server := obj{{"type", "stdio"}, {"command", o.program()}, {"args", o.args()}}
	perms := []jsonOp{
		{path: []string{"permissions", "allow"}, add: []string{"mcp__whale"}},
		{path: []string{"permissions", "deny"}, add: claudeDeny},
	}
	if o.Scope == Project {
		return []change{
			{path: o.root(".mcp.json"), format: "json", json: []jsonOp{{path: []string{"mcpServers", "whale"}, value: server}}},
			{path: o.root(".claude", "settings.json"), format: "json", json: append([]jsonOp{{path: []string{"enabledMcpjsonServers"}, add: []string{"whale"}}}, perms...)},
		}, nil
	}
	global, settings := o.home(".claude.json"), o.home(".claude", "settings.json")
	if dir := o.getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		global, settings = filepath.Join(dir, ".claude.json"), filepath.Join(dir, "settings.json")
	}
	return []change{
		{path: global, format: "json", json: []jsonOp{{path: []string{"mcpServers", "whale"}, value: server}}},
		{path: settings, format: "json", json: perms},
	}, nil
}

package hostsetup

import "path/filepath"

// Copilot CLI: MCP servers in .github/mcp.json (project, read in a trusted
// folder) or ~/.copilot/mcp-config.json ($COPILOT_HOME moves ~/.copilot).
// Its default agent's built-in tools can be kept from the model only by
// command-line flags or an organization's policy, so setup adds a custom
// agent, whale, whose tool list is whale's tools and the read-only view,
// grep and glob.
const copilotAgent = `---
name: whale
description: Edits files and runs commands through whale-ls, whose edits are exact, journaled and revertible (whale-ls changes).
tools: ["whale/*", "view", "grep", "glob"]
---
You work through whale-ls: edit, write and patch files with whale's tools
(edit, multi_edit, write, apply_patch) and run commands with its shell_run;
read with its read_file, grep and search_files, or with view, grep and glob.
`

var copilot = &Host{
	Name:   "copilot",
	Title:  "Copilot CLI",
	Tested: "1.0.102",
	Off:    []string{"bash", "edit", "create and every other built-in but view, grep, glob, skill and sql, in the agent whale"},
	Limits: []string{"the default agent keeps bash, edit and create: Copilot CLI 1.0.102 takes tool exclusions only from its command line (--excluded-tools, --deny-tool) or an organization's policy, so setup adds the agent whale"},
	Kept:   []string{"view", "grep", "glob", "skill", "sql"},
	Start:  "copilot --agent whale (or /agent in a session, then whale)",
	plan:   copilotPlan,
}

func copilotPlan(o Options) ([]change, error) {
	mcp := o.root(".github", "mcp.json")
	agent := o.root(".github", "agents", "whale.agent.md")
	if o.Scope == User {
		dir := o.home(".copilot")
		if d := o.getenv("COPILOT_HOME"); d != "" {
			dir = d
		}
		mcp = filepath.Join(dir, "mcp-config.json")
		agent = filepath.Join(dir, "agents", "whale.agent.md")
	}
	server := obj{{"type", "local"}, {"command", o.program()}, {"args", o.args()}, {"tools", []string{"*"}}}
	return []change{
		{path: mcp, format: "json", json: []jsonOp{{path: []string{"mcpServers", "whale"}, value: server}}},
		{path: agent, format: "text", text: copilotAgent},
	}, nil
}

package hostsetup

import "strings"

// Gemini CLI: the MCP server in settings.json (comments allowed) of the
// project's .gemini folder or ~/.gemini. Its tools: for the user, a policy
// file in ~/.gemini/policies, whose deny rule without arguments keeps a tool
// from the model; for a project, tools.exclude in settings.json, because
// Gemini CLI 0.61 reads no policies from a project (workspace policies are
// turned off in that release) and tools.exclude, which it calls deprecated,
// still works.

// GeminiOff are the tools that setup (and whale-ls acp, for one run) keeps
// from the model.
var GeminiOff = []string{"replace", "write_file", "run_shell_command", "list_background_processes", "read_background_output"}

var geminiDeny = GeminiOff

// GeminiPolicyRules deny the built-in hands and allow whale's tools,
// except in plan mode, which stays read-only. Priorities are within the
// file's tier (workspace or user; a --policy file's for whale-ls acp),
// above Gemini's defaults.
var GeminiPolicyRules = `[[rule]]
toolName = [` + quoteList(geminiDeny) + `]
decision = "deny"
priority = 900

[[rule]]
mcpName = "whale"
toolName = "*"
decision = "allow"
priority = 900
modes = ["default", "autoEdit", "yolo"]
`

var geminiPolicy = `# Written by whale-ls setup gemini; whale-ls setup gemini --undo removes it.
# whale-ls's MCP tools are the hands: Gemini CLI's own edit, write and
# shell tools are not offered to the model.
` + GeminiPolicyRules

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quote(s)
	}
	return strings.Join(q, ", ")
}

var gemini = &Host{
	Name:   "gemini",
	Title:  "Gemini CLI",
	Tested: "0.61.0",
	Off:    geminiDeny,
	Kept:   []string{"read_file", "list_directory", "glob", "grep_search", "web_fetch", "google_web_search", "write_todos", "invoke_agent", "activate_skill"},
	Start:  "gemini (with folder trust on, it reads the project's .gemini/settings.json once you trust the folder; it warns that tools.exclude, which project scope uses, is deprecated)",
	plan:   geminiPlan,
}

func geminiPlan(o Options) ([]change, error) {
	if o.Scope == Project {
		return []change{{path: o.root(".gemini", "settings.json"), format: "jsonc", json: []jsonOp{
			{path: []string{"mcpServers", "whale"}, value: obj{{"command", o.program()}, {"args", o.args()}, {"trust", true}}},
			{path: []string{"tools", "exclude"}, add: geminiDeny},
		}}}, nil
	}
	return []change{
		{path: o.home(".gemini", "settings.json"), format: "jsonc", json: []jsonOp{
			{path: []string{"mcpServers", "whale"}, value: obj{{"command", o.program()}, {"args", o.args()}}},
		}},
		{path: o.home(".gemini", "policies", "whale.toml"), format: "text", text: geminiPolicy},
	}, nil
}

package hostsetup

import "path/filepath"

// Codex CLI: config.toml, in the project's .codex folder (read for a
// trusted project) or $CODEX_HOME (~/.codex). Its shell tools are
// features: shell_tool (shell) and unified_exec (exec_command,
// write_stdin).
var codex = &Host{
	Name:   "codex",
	Title:  "Codex CLI",
	Tested: "0.171.0",
	Off:    []string{"shell", "exec_command", "write_stdin"},
	Limits: []string{"apply_patch, which Codex offers the models whose catalog entry asks for it: Codex 0.171 has no setting that removes it"},
	Kept:   []string{"view_image", "web search", "the MCP resource tools", "subagents", "request_user_input"},
	Start:  "codex (it reads .codex/config.toml of a trusted project only: trust the folder when Codex asks)",
	plan:   codexPlan,
}

func codexPlan(o Options) ([]change, error) {
	file := o.root(".codex", "config.toml")
	if o.Scope == User {
		file = o.home(".codex", "config.toml")
		if dir := o.getenv("CODEX_HOME"); dir != "" {
			file = filepath.Join(dir, "config.toml")
		}
	}
	server := []string{"mcp_servers", "whale"}
	return []change{{path: file, format: "toml", toml: []tomlOp{
		{table: server, key: "command", value: o.program()},
		{table: server, key: "args", value: o.args()},
		{table: []string{"features"}, key: "shell_tool", value: false},
		{table: []string{"features"}, key: "unified_exec", value: false},
	}}}, nil
}

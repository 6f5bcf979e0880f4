package hostsetup

// Qwen Code: settings.json (comments allowed) in the project's .qwen folder
// or ~/.qwen. A whole-tool permissions.deny rule removes a built-in tool
// from the registry ("Edit" covers edit, write_file and notebook_edit;
// "Bash" is run_shell_command); permissions.allow approves whale's tools;
// alwaysLoadTools offers them at once instead of behind tool_search.
var qwenDeny = []string{"Edit", "Write", "NotebookEdit", "Bash"}

var qwen = &Host{
	Name:   "qwen",
	Title:  "Qwen Code",
	Tested: "0.24.4",
	Off:    []string{"edit", "write_file", "notebook_edit", "run_shell_command"},
	Kept:   []string{"read_file", "glob", "grep_search", "list_directory", "web_fetch", "agent", "skill", "tool_search"},
	Start:  "qwen (with folder trust on, it reads the project's .qwen/settings.json once you trust the folder)",
	plan:   qwenPlan,
}

func qwenPlan(o Options) ([]change, error) {
	file := o.root(".qwen", "settings.json")
	if o.Scope == User {
		file = o.home(".qwen", "settings.json")
	}
	return []change{{path: file, format: "jsonc", json: []jsonOp{
		{path: []string{"mcpServers", "whale"}, value: obj{{"command", o.program()}, {"args", o.args()}, {"alwaysLoadTools", true}}},
		{path: []string{"permissions", "allow"}, add: []string{"mcp__whale"}},
		{path: []string{"permissions", "deny"}, add: qwenDeny},
	}}}, nil
}

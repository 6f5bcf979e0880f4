package hostsetup

import (
	"os"
	"path/filepath"
)

// opencode: opencode.json or opencode.jsonc (comments allowed) in the
// project, or in $XDG_CONFIG_HOME/opencode (~/.config/opencode). A tool
// whose permission is "deny" is not offered to the model: "edit" covers
// edit, write and apply_patch; "bash" the shell.
var opencode = &Host{
	Name:   "opencode",
	Title:  "opencode",
	Tested: "1.18.33",
	Off:    []string{"edit", "write", "apply_patch (permission edit: deny)", "bash (permission bash: deny)"},
	Kept:   []string{"read", "glob", "grep", "list", "webfetch", "task", "todowrite", "skill"},
	plan:   opencodePlan,
}

func opencodePlan(o Options) ([]change, error) {
	dir := o.Root
	names := []string{"opencode.jsonc", "opencode.json"}
	if o.Scope == User {
		dir = filepath.Join(o.xdgConfig(), "opencode")
		names = append(names, "config.json")
	}
	// The file the user already has, else opencode.json.
	file := filepath.Join(dir, "opencode.json")
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			file = filepath.Join(dir, n)
			break
		}
	}
	command := append([]string{o.program()}, o.args()...)
	return []change{{path: file, format: "jsonc", json: []jsonOp{
		{path: []string{"mcp", "whale"}, value: obj{{"type", "local"}, {"command", command}, {"enabled", true}}},
		{path: []string{"permission", "edit"}, value: "deny"},
		{path: []string{"permission", "bash"}, value: "deny"},
	}}}, nil
}

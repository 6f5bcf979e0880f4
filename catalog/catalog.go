package catalog

import "github.com/whale-ls/whale-ls/toolbridge"

// Catalog assembles every built-in tool, group by group, in the order clients
// list them. Each group lives in its own catalog_<group>.go file.
func Catalog(d *Deps) []toolbridge.Tool {
	var tools []toolbridge.Tool
	tools = append(tools, fileTools(d)...)
	tools = append(tools, searchTools(d)...)
	tools = append(tools, webTools(d)...)
	tools = append(tools, inputTools(d)...)
	tools = append(tools, editTools(d)...)
	tools = append(tools, shellTools(d)...)
	tools = append(tools, planTools(d)...)
	tools = append(tools, todoTools(d)...)
	tools = append(tools, mcpTools(d)...)
	return tools
}

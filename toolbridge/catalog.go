package toolbridge

// Catalog assembles every built-in tool, group by group, in the order clients
// list them. Each group lives in its own catalog_<group>.go file.
func Catalog(d *Deps) []Tool {
	var tools []Tool
	tools = append(tools, fileTools(d)...)
	tools = append(tools, searchTools(d)...)
	tools = append(tools, editTools(d)...)
	tools = append(tools, shellTools(d)...)
	return tools
}

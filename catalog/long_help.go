package catalog

import (
	"embed"
	"strings"
)

// longHelp holds <tool>.long.md for the built-in tools: the worked examples
// and full limits that do not fit in the description.
//
//go:embed *.long.md
var longHelp embed.FS

// LongHelp returns the long help of a built-in tool, for people
// (`whale-ls tools --long`); it is never sent to a model. It is "" for a
// tool without one, such as a proxied MCP tool.
func LongHelp(tool string) string {
	b, err := longHelp.ReadFile(tool + ".long.md")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n") + "\n"
}

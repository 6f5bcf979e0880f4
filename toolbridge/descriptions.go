package toolbridge

import (
	"embed"
	"strings"
)

// MaxDescriptionBytes is the most a tool description sent to a model may
// hold: Azure OpenAI refuses a longer one (string_above_max_length) and
// Claude Code cuts MCP tool descriptions at 2048 characters. A description
// says what the tool does, when to use it and when not, and the one rule
// that prevents the common mistake; worked examples and long limits go
// into the parameters' descriptions and the long help.
const MaxDescriptionBytes = 1024

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

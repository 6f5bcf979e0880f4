package toolbridge

// MaxDescriptionBytes is the most a tool description sent to a model may
// hold: Azure OpenAI refuses a longer one (string_above_max_length) and
// Claude Code cuts MCP tool descriptions at 2048 characters. A description
// says what the tool does, when to use it and when not, and the one rule
// that prevents the common mistake; worked examples and long limits go
// into the parameters' descriptions and the long help.
const MaxDescriptionBytes = 1024

// Package hosts holds the tests that run real agent CLIs (Claude Code,
// Codex CLI, Gemini CLI, opencode, Copilot CLI, Qwen Code) as MCP hosts
// of the real `whale-ls mcp`, each driven through one turn by a scripted
// model on 127.0.0.1 (internal/scriptedmodel); and each again in whale
// mode, after `whale-ls setup HOST` wrote its configuration, offered none
// of its built-in edit, write or shell tools. Gemini CLI's ACP mode and
// claude-agent-acp run behind the real `whale-ls acp` too, with a minimal
// ACP client (acp_test.go, acpagents_test.go).
//
// The tests are behind the build tag "hosts" (`make hosts`; Linux only):
// they install the hosts from npm into a version-keyed cache folder, which
// `go test ./...` must not do. The package has no code of its own.
package hosts

package acpfront

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/whale-ls/whale-ls/hostsetup"
)

// agentHands is what the proxy knows of one agent's built-in edit, write
// and shell tools that do not come to the client as fs/* or terminal/*:
// how to keep them from the model for one run without touching the user's
// own configuration files, so that whale's MCP tools are its hands.
//
// Guarantee: only agents recognised by their command line are changed, and
// only when whale's MCP server is added (Options.MCPServer) and
// Options.KeepAgentTools is false. Not guaranteed: a tool a later version
// of the agent adds under a new name stays on until it is listed here.
type agentHands struct {
	// Title names the agent for a person.
	Title string
	// Off are the agent's tools kept from the model.
	Off []string
	// args returns arguments appended to the agent's command line; the
	// files they name are written in dir (private, removed after the run).
	args func(dir string) ([]string, error)
	// sessionMeta returns the _meta fields merged into every session/new
	// and session/load.
	sessionMeta func() map[string]any
}

// geminiOff are Gemini CLI's tools that edit, write or run commands (the
// same as whale-ls setup gemini's). Its run_shell_command runs commands
// itself: Gemini CLI 0.61 never calls terminal/create.
var geminiOff = hostsetup.GeminiOff

// geminiPolicy is a Gemini CLI policy file: a deny rule without arguments
// keeps a tool from the model; whale's own tools are allowed without a
// second question (the exec boundary asks what needs asking).
var geminiPolicy = "# Written by whale-ls acp for this run only.\n" + hostsetup.GeminiPolicyRules

// claudeOff are Claude Code's tools that edit, write or run commands (the
// same as whale-ls setup claude's). claude-agent-acp runs them in Claude
// Code itself, never through fs/* or terminal/* (checked in its 0.101.0
// source).
var claudeOff = hostsetup.ClaudeOff

var (
	geminiHands = &agentHands{
		Title: "Gemini CLI",
		Off:   geminiOff,
		// --policy adds a policy file for this run (Gemini CLI 0.61.0 has it).
		args: func(dir string) ([]string, error) {
			path := filepath.Join(dir, "whale-policy.toml")
			if err := os.WriteFile(path, []byte(geminiPolicy), 0o600); err != nil {
				return nil, fmt.Errorf("write Gemini CLI's policy file: %w", err)
			}
			return []string{"--policy", path}, nil
		},
	}
	// claude-agent-acp passes _meta.claudeCode.options of session/new and
	// session/load to Claude Code's SDK (disallowedTools and allowedTools
	// are added to its own).
	claudeHands = &agentHands{
		Title: "Claude Code (claude-agent-acp)",
		Off:   claudeOff,
		sessionMeta: func() map[string]any {
			return map[string]any{"claudeCode": map[string]any{"options": map[string]any{
				"disallowedTools": claudeOff,
				"allowedTools":    []string{"mcp__whale"},
			}}}
		},
	}
)

// recogniseAgent returns what the proxy knows of the agent argv starts, or
// nil. It looks at the program and, when that is a runner (node, npx,
// bunx, pnpm dlx…), at the first word after it that is not a flag or a
// runner's verb, so that `node …/gemini.js --acp` and
// `npx -y @agentclientprotocol/claude-agent-acp` are recognised and an
// argument that merely mentions a name is not.
func recogniseAgent(argv []string) *agentHands {
	for i, word := range argv {
		if i > 0 && (strings.HasPrefix(word, "-") || runnerVerbs[word]) {
			continue
		}
		base := strings.TrimSuffix(filepath.Base(word), ".js")
		switch {
		case strings.Contains(word, "claude-agent-acp") || strings.Contains(word, "claude-code-acp"):
			return claudeHands
		case base == "gemini" || strings.Contains(word, "gemini-cli"):
			return geminiHands
		}
		if !runners[base] {
			return nil
		}
	}
	return nil
}

// runners are programs that run the agent named after them; runnerVerbs
// are their subcommands that come before it.
var (
	runners     = map[string]bool{"node": true, "nodejs": true, "npx": true, "bunx": true, "bun": true, "pnpm": true, "yarn": true, "deno": true, "env": true}
	runnerVerbs = map[string]bool{"dlx": true, "x": true, "exec": true, "run": true}
)

// prepareArgs returns argv with the agent's extra arguments, and a function
// that removes the files they name.
func (h *agentHands) prepareArgs(argv []string) ([]string, func(), error) {
	if h == nil || h.args == nil {
		return argv, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "whale-acp-")
	if err != nil {
		return nil, nil, fmt.Errorf("make a private folder for %s's settings: %w", h.Title, err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	extra, err := h.args(dir)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return append(append([]string(nil), argv...), extra...), cleanup, nil
}

// withSessionMeta merges the agent's _meta fields into the params of a
// session/new or session/load (line is the whole message, as the proxy
// relays it); fields of the editor's own _meta are kept, lists joined.
func (h *agentHands) withSessionMeta(line []byte) []byte {
	if h == nil || h.sessionMeta == nil {
		return line
	}
	var m struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Params == nil {
		return line
	}
	params := m.Params
	var meta map[string]any
	_ = json.Unmarshal(params["_meta"], &meta)
	params["_meta"] = mustJSON(mergeMeta(meta, h.sessionMeta()))
	out, err := withFields(line, map[string]any{"params": params})
	if err != nil {
		return line
	}
	return out
}

// mergeMeta merges add into base: objects field by field, lists joined
// (without repeats), other values of base kept.
func mergeMeta(base, add map[string]any) map[string]any {
	if base == nil {
		base = map[string]any{}
	}
	for k, v := range add {
		switch v := v.(type) {
		case map[string]any:
			sub, _ := base[k].(map[string]any)
			base[k] = mergeMeta(sub, v)
		case []string:
			have, _ := base[k].([]any)
			seen := map[string]bool{}
			for _, x := range have {
				if s, ok := x.(string); ok {
					seen[s] = true
				}
			}
			for _, s := range v {
				if !seen[s] {
					have = append(have, s)
				}
			}
			base[k] = have
		default:
			if _, ok := base[k]; !ok {
				base[k] = v
			}
		}
	}
	return base
}

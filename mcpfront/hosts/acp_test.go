//go:build hosts && linux

package hosts_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/internal/scriptedmodel"
	"github.com/whale-ls/whale-ls/internal/syncbuf"
)

// acpClient is a minimal ACP client (the editor's side) over a process's
// standard streams: it sends requests, answers session/request_permission
// by allowing once, and records every message it got.
type acpClient struct {
	t   *testing.T
	in  io.WriteCloser
	mu  sync.Mutex
	seq int
	got []map[string]any
	// waiting maps a request's id to the channel of its response.
	waiting map[string]chan map[string]any
}

func newACPClient(t *testing.T, in io.WriteCloser, out io.Reader) *acpClient {
	c := &acpClient{t: t, in: in, waiting: map[string]chan map[string]any{}}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			c.mu.Lock()
			c.got = append(c.got, m)
			id := fmt.Sprint(m["id"])
			ch := c.waiting[id]
			c.mu.Unlock()
			switch {
			case m["method"] == "session/request_permission":
				c.allowOnce(m)
			case m["method"] == nil && ch != nil:
				ch <- m
			}
		}
	}()
	return c
}

func (c *acpClient) send(v any) {
	b, _ := json.Marshal(v)
	c.in.Write(append(b, '\n'))
}

// allowOnce answers a permission request with its allow_once option.
func (c *acpClient) allowOnce(m map[string]any) {
	params, _ := m["params"].(map[string]any)
	options, _ := params["options"].([]any)
	choice := ""
	for _, o := range options {
		if o, _ := o.(map[string]any); o["kind"] == "allow_once" {
			choice = fmt.Sprint(o["optionId"])
		}
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": choice}}})
}

// request sends a request and waits for its response (nil after timeout).
func (c *acpClient) request(method string, params any, timeout time.Duration) map[string]any {
	c.mu.Lock()
	c.seq++
	id := strconv.Itoa(c.seq)
	ch := make(chan map[string]any, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.seq, "method": method, "params": params})
	select {
	case m := <-ch:
		return m
	case <-time.After(timeout):
		return nil
	}
}

// updates returns the session/update payloads the client got, in order.
func (c *acpClient) updates() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, m := range c.got {
		if m["method"] == "session/update" {
			params, _ := m["params"].(map[string]any)
			if u, ok := params["update"].(map[string]any); ok {
				out = append(out, u)
			}
		}
	}
	return out
}

// acpTurn is a turn whose agent runs behind whale-ls acp: a workspace
// holding notes.txt and a HOME; startModel adds the scripted model.
func acpTurn(t *testing.T, notes string) *turn {
	t.Helper()
	base := t.TempDir()
	r := &turn{t: t, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home")}
	for _, d := range []string{r.ws, r.home, filepath.Join(base, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r.ws, "notes.txt"), []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

// startModel starts the turn's scripted model.
func (r *turn) startModel(script scriptedmodel.Script) {
	r.t.Helper()
	model, err := scriptedmodel.Start(script)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { model.Close() })
	r.model = model
}

// acpEnv is the environment of whale-ls acp and the agent it starts.
func (r *turn) acpEnv(pathFirst []string, extra ...string) []string {
	return append(append(r.baseEnv(pathFirst...), "XDG_RUNTIME_DIR="+filepath.Join(filepath.Dir(r.ws), "run")), extra...)
}

// playACP starts `whale-ls acp FLAGS -- AGENT…` in the turn's workspace
// with procEnv, opens a session as an editor would (choosing authMethod when
// the agent wants one first), sends one prompt and waits for the turn's
// end; it returns the client, which holds every message it got. The proxy
// is stopped, by ending its input, when the test ends.
func (r *turn) playACP(flags, agent, procEnv []string, authMethod string) *acpClient {
	t := r.t
	t.Helper()
	cmd := exec.Command(env.WhaleLS, append(append(flags, "--"), agent...)...)
	cmd.Dir = r.ws
	cmd.Env = procEnv
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("whale-ls acp did not exit within 10 s of its input ending")
			<-exited
		}
		if t.Failed() {
			t.Logf("whale-ls acp's stderr (tail):\n%s\nmodel requests:\n%s", tail(stderr.String(), 4000), r.model.Log(300))
		}
	})
	c := newACPClient(t, stdin, stdout)
	ini := c.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, 60*time.Second)
	if ini == nil || ini["error"] != nil {
		t.Fatalf("initialize answered %v", ini)
	}
	result, _ := ini["result"].(map[string]any)
	t.Logf("the agent's initialize: agentInfo %v, authMethods %v", result["agentInfo"], result["authMethods"])
	sn := c.request("session/new", map[string]any{"cwd": r.ws, "mcpServers": []any{}}, 60*time.Second)
	if sn != nil && sn["error"] != nil && authMethod != "" {
		if a := c.request("authenticate", map[string]any{"methodId": authMethod}, 60*time.Second); a == nil || a["error"] != nil {
			t.Fatalf("session/new answered %v, and authenticate %v", sn["error"], a)
		}
		sn = c.request("session/new", map[string]any{"cwd": r.ws, "mcpServers": []any{}}, 60*time.Second)
	}
	if sn == nil || sn["error"] != nil {
		t.Fatalf("session/new answered %v", sn)
	}
	sid := sn["result"].(map[string]any)["sessionId"]
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	pr := c.request("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "Greet the whale in notes.txt."}}}, time.Until(deadline))
	if pr == nil || pr["error"] != nil {
		t.Fatalf("session/prompt answered %v", pr)
	}
	t.Logf("the turn ended with %v", pr["result"])
	return c
}

// journalEntry is one entry of `whale-ls changes --json list`.
type journalEntry struct {
	Title string `json:"title"`
	Tool  string `json:"tool"`
}

// journal lists whale's journal of the workspace, newest first.
func (r *turn) journal(procEnv []string) []journalEntry {
	r.t.Helper()
	list := exec.Command(env.WhaleLS, "changes", "--root", r.ws, "--json", "list")
	list.Env = procEnv
	out, err := list.Output()
	if err != nil {
		r.t.Fatalf("whale-ls changes list: %v", err)
	}
	var journal struct {
		Data struct {
			Entries []journalEntry `json:"entries"`
		} `json:"data"`
	}
	json.Unmarshal(out, &journal)
	r.t.Logf("whale's journal: %+v", journal.Data.Entries)
	return journal.Data.Entries
}

// TestGeminiCLIThroughACP runs Gemini CLI's ACP mode behind whale-ls acp
// (--no-tools: the model sees Gemini's own tools only) with a scripted
// model that reads notes.txt with Gemini's read_file, rewrites it with its
// write_file and runs cat with its run_shell_command. The write must land
// through whale: on disk and in whale's journal under Gemini's name.
func TestGeminiCLIThroughACP(t *testing.T) {
	dir := hostDir(t, geminiHost.key)
	r := acpTurn(t, "hello world\r\n")
	notes := filepath.Join(r.ws, "notes.txt")
	r.startModel(scriptedmodel.Script{
		Steps: []scriptedmodel.Step{
			{Tool: "read_file", Arguments: map[string]any{"file_path": notes}},
			{Tool: "write_file", Arguments: map[string]any{"file_path": notes, "content": "hello whale\n"}},
			{Tool: "run_shell_command", Arguments: map[string]any{"command": "cat notes.txt"}},
		},
		Final: "Done through ACP.",
	})
	model := r.model
	writeGeminiSettings(t, r)
	agentEnv := r.acpEnv(nil, "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+model.URL())
	c := r.playACP([]string{"acp", "--no-tools"}, geminiACP(dir), agentEnv, "gemini-api-key")

	if got, _ := os.ReadFile(notes); string(got) != "hello whale\r\n" {
		t.Errorf("notes.txt holds %q, want Gemini's write through whale with its CRLF kept: %q", got, "hello whale\r\n")
	}
	found := false
	var titles []string
	for _, e := range r.journal(agentEnv) {
		titles = append(titles, e.Title+" ["+e.Tool+"]")
		found = found || e.Tool == "fs/write_text_file" && strings.HasSuffix(e.Title, " edited notes.txt (+1 −1)")
	}
	if !found {
		t.Errorf("whale's journal has no fs/write_text_file entry for notes.txt: %q", titles)
	}
	var diffs, terminals int
	for _, u := range c.updates() {
		content, _ := u["content"].([]any)
		for _, item := range content {
			if item, _ := item.(map[string]any); item["type"] == "diff" && item["path"] == notes {
				diffs++
			} else if item["type"] == "terminal" {
				terminals++
			}
		}
	}
	if diffs == 0 {
		t.Errorf("the client was shown no diff of notes.txt")
	}
	for _, res := range model.ToolResults() {
		t.Logf("the model read for %s: %s", res.Tool, tail(res.Text, 300))
	}
	t.Logf("terminal contents the client got: %d (Gemini CLI uses ACP terminals only when it does: 0 means its shell tool ran the command itself)", terminals)
}

// writeGeminiSettings writes the user settings every Gemini CLI run here
// needs (offline, API-key auth, no folder trust), and the fields of extra.
func writeGeminiSettings(t *testing.T, r *turn, extra ...map[string]any) {
	settings := map[string]any{
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false},
		},
	}
	for _, e := range extra {
		maps.Copy(settings, e)
	}
	writeJSONFile(t, filepath.Join(r.home, ".gemini", "settings.json"), settings)
}

// geminiACP is Gemini CLI's ACP-mode command line.
func geminiACP(dir string) []string {
	return []string{"node", filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"), "--acp", "--model", "gemini-2.5-flash"}
}

package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// terminalEvents returns the whale/terminal/* notifications so far.
func (e *fakeEditor) terminalEvents() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, n := range e.whaleNT {
		if strings.HasPrefix(n, "whale/terminal/") {
			out = append(out, n)
		}
	}
	return out
}

// TestTerminalStreamsToTheEditor runs a PTY task, types into it from the
// editor's terminal, and checks the notifications: open first, output with
// increasing seq, exit last.
func TestTerminalStreamsToTheEditor(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{experimental: map[string]any{"whale": map[string]any{"terminals": true}}})
	env := s.exec(ctxT(t), "shell_run", map[string]any{"command": `read -r line; echo "got:$line"`, "mode": "pty", "background": true})
	if !env.OK {
		t.Fatalf("shell_run = %s %q", env.Code, env.Text)
	}
	var data struct {
		TaskID string `json:"task_id"`
	}
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &data)
	if data.TaskID == "" {
		t.Fatalf("shell_run data %s has no task_id", b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(s.ed.terminalEvents()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := s.conn.Call(ctxT(t), "whale/terminal/input", map[string]any{"taskId": data.TaskID, "data": "hello\r"}, nil); err != nil {
		t.Fatalf("whale/terminal/input: %v", err)
	}
	env = s.exec(ctxT(t), "shell_wait", map[string]any{"task_id": data.TaskID, "timeout_ms": 30000})
	wantText(t, env, "got:hello")
	for !strings.HasPrefix(last(s.ed.terminalEvents()), "whale/terminal/exit") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	events := s.ed.terminalEvents()
	if len(events) < 3 || !strings.HasPrefix(events[0], "whale/terminal/open") || !strings.HasPrefix(last(events), "whale/terminal/exit") {
		t.Fatalf("terminal notifications = %q; want open, output…, exit", events)
	}
	seq := int64(0)
	var output strings.Builder
	for _, e := range events[1 : len(events)-1] {
		var p struct {
			TaskID string `json:"taskId"`
			Seq    int64  `json:"seq"`
			Data   string `json:"data"`
		}
		json.Unmarshal([]byte(strings.TrimPrefix(e, "whale/terminal/output ")), &p)
		if p.TaskID != data.TaskID || p.Seq <= seq {
			t.Fatalf("output notification %q out of order after seq %d", e, seq)
		}
		seq = p.Seq
		output.WriteString(p.Data)
	}
	if !strings.Contains(output.String(), "got:hello") {
		t.Errorf("the editor's terminal showed %q, want the task's output", output.String())
	}
	var list struct {
		Tasks []struct {
			ID    string `json:"taskId"`
			State string `json:"state"`
		} `json:"tasks"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/terminal/list", nil, &list); err != nil || len(list.Tasks) == 0 {
		t.Fatalf("whale/terminal/list = %+v, %v", list, err)
	}
}

func last(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[len(ss)-1]
}

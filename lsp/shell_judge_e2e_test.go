package lsp_test

import (
	"strings"
	"testing"
)

type shellJudgement struct {
	ReadOnly bool   `json:"readOnly"`
	Boundary string `json:"boundary"`
}

func judge(t *testing.T, s *session, params map[string]any) (shellJudgement, error) {
	t.Helper()
	var j shellJudgement
	_, err := s.conn.Call(ctxT(t), "whale/shell/judge", params, &j)
	return j, err
}

// TestShellJudge asks the real server what it will do with shell_run
// commands, behind the exec boundary, before any runs: the editor asks the
// user once, by VS Code's confirmation or by the boundary's approval.
func TestShellJudge(t *testing.T) {
	s, _ := gatedSession(t, map[string]any{"execBoundary": map[string]any{"rules": []any{
		map[string]any{"program": "touch", "decision": "ask"},
		map[string]any{"program": "curl", "decision": "deny"},
	}}})
	for _, tc := range []struct {
		command string
		want    shellJudgement
	}{
		{"ls -la && cat keep.txt", shellJudgement{ReadOnly: true, Boundary: "allow"}},
		{"mkdir -p out && echo done", shellJudgement{Boundary: "allow"}},
		{"touch made.txt && echo done", shellJudgement{Boundary: "ask"}},
		{"sh -c 'curl -s example.com'", shellJudgement{Boundary: "deny"}},
	} {
		got, err := judge(t, s, map[string]any{"command": tc.command, "cwd": "victim"})
		if err != nil || got != tc.want {
			t.Errorf("whale/shell/judge %q = %+v, %v; want %+v", tc.command, got, err, tc.want)
		}
	}
	if _, err := judge(t, s, map[string]any{"command": "ls", "cwd": "no-such-folder"}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("whale/shell/judge in a missing cwd: %v, want an error saying it does not exist", err)
	}
	if _, err := judge(t, s, map[string]any{"command": "  "}); err == nil || !strings.Contains(err.Error(), "command is empty") {
		t.Errorf("whale/shell/judge of an empty command: %v, want an error saying it is empty", err)
	}
}

// TestShellJudgeUnchecked: with the exec boundary off nothing checks the
// programs, so the editor must ask.
func TestShellJudgeUnchecked(t *testing.T) {
	s := start(t, writeFiles(t, map[string]string{"a.txt": "a\n"}), sessionOptions{initOptions: map[string]any{"execBoundary": map[string]any{"mode": "off"}}})
	got, err := judge(t, s, map[string]any{"command": "sudo rm -rf /tmp/x"})
	if want := (shellJudgement{Boundary: "unchecked"}); err != nil || got != want {
		t.Errorf("whale/shell/judge with mode off = %+v, %v; want %+v", got, err, want)
	}
}

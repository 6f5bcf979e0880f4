package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// gatedSession starts a server whose client shows prompts, with the audit
// log in a fresh state folder, and skips when the exec gate cannot run.
func gatedSession(t *testing.T, settings map[string]any) (*session, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the exec gate is Linux only")
	}
	state := t.TempDir()
	s := start(t, writeFiles(t, map[string]string{"victim/keep.txt": "keep me\n"}), sessionOptions{
		experimental: map[string]any{"whale": map[string]any{"prompts": true}},
		initOptions:  settings,
		runtimeDir:   state, // also the server's XDG_STATE_HOME
	})
	raw, _ := json.Marshal(s.init.Capabilities.Experimental)
	var exp struct {
		Whale struct {
			ExecBoundary struct {
				Mode   string `json:"mode"`
				Active bool   `json:"active"`
				Reason string `json:"reason"`
			} `json:"execBoundary"`
		} `json:"whale"`
	}
	json.Unmarshal(raw, &exp)
	if !exp.Whale.ExecBoundary.Active {
		t.Skipf("the exec gate is not active here: %s (%s)", exp.Whale.ExecBoundary.Reason, raw)
	}
	return s, filepath.Join(state, "whale-ls", "audit.jsonl")
}

// answerNextPrompt waits for the n-th whale/prompt, checks it is an exec
// approval, and answers it with option.
func answerNextPrompt(t *testing.T, s *session, n int, option string) map[string]any {
	t.Helper()
	waitFor(t, "an approval prompt", func() bool { return len(s.ed.prompts()) >= n })
	p := s.ed.prompts()[n-1]
	if p["kind"] != "approval" || !strings.Contains(p["detail"].(string), "/usr/bin/rm") || !strings.Contains(p["detail"].(string), "rm -rf victim") {
		t.Errorf("prompt = %v, want an approval naming /usr/bin/rm and the command", p)
	}
	if _, err := s.conn.Call(ctxT(t), "whale/prompt/answer", map[string]any{"promptId": p["promptId"], "optionId": option}, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecBoundaryAskApproveThroughEditor(t *testing.T) {
	s, audit := gatedSession(t, nil)
	done := make(chan toolbridge.Envelope, 1)
	go func() {
		done <- s.exec(ctxT(t), "shell_run", map[string]any{"command": "rm -rf victim; echo rc=$?", "yield_time_ms": 1500})
	}()
	waitFor(t, "an approval prompt", func() bool { return len(s.ed.prompts()) >= 1 })
	// Leave the prompt open past the yield time: a yield timer that kept
	// running would return a background task now.
	time.Sleep(2500 * time.Millisecond)
	select {
	case env := <-done:
		t.Fatalf("shell_run returned while its approval was still open: %s", env.Text)
	default:
	}
	answerNextPrompt(t, s, 1, "allow_once")
	env := <-done
	if _, err := os.Stat(s.path("victim")); err == nil {
		t.Fatalf("victim still exists after allow_once: %s", env.Text)
	}
	// The yield timer was paused while the prompt was open: the result is
	// final, not a background task.
	wantText(t, env, "rc=0", "finished")
	if b, err := os.ReadFile(audit); err != nil || !strings.Contains(string(b), `"decision":"allow","rule":"rm [any of`) || !strings.Contains(string(b), `"decidedBy":"user"`) {
		ents, _ := os.ReadDir(filepath.Dir(filepath.Dir(audit)))
		t.Errorf("audit log = %s (%v); state folder holds %v; stderr %s", b, err, ents, s.stderrText())
	}
}

func TestExecBoundaryAskDenyThroughEditor(t *testing.T) {
	s, _ := gatedSession(t, nil)
	done := make(chan toolbridge.Envelope, 1)
	go func() {
		done <- s.exec(ctxT(t), "shell_run", map[string]any{"command": "rm -rf victim; echo rc=$?"})
	}()
	answerNextPrompt(t, s, 1, "deny")
	env := <-done
	if _, err := os.Stat(s.path("victim/keep.txt")); err != nil {
		t.Fatalf("victim removed after deny: %s", env.Text)
	}
	wantText(t, env, "whale: policy denied /usr/bin/rm", "the user said no", "rc=126", "Do not try to run it another way")
	raw, _ := json.Marshal(env.Data)
	if !strings.Contains(string(raw), `"reason":"policy_denied"`) {
		t.Errorf("diagnosis = %s, want reason policy_denied", raw)
	}
}

func TestExecBoundaryDenyRuleFromSettings(t *testing.T) {
	s, _ := gatedSession(t, map[string]any{"execBoundary": map[string]any{"rules": []any{map[string]any{"program": "rm", "decision": "deny"}}}})
	env := s.exec(ctxT(t), "shell_run", map[string]any{"command": "cp /usr/bin/rm ./zap && ./zap -r victim; echo rc=$?"})
	if _, err := os.Stat(s.path("victim/keep.txt")); err != nil {
		t.Fatalf("a copy of rm removed the victim: %s", env.Text)
	}
	wantText(t, env, "whale: policy denied", "rm → deny")
	if len(s.ed.prompts()) != 0 {
		t.Errorf("a deny rule asked the user: %v", s.ed.prompts())
	}
}

package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func (n *recordingNotifier) record(method string, params any) {
	b, _ := json.Marshal(params)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, method+" "+string(b))
}

func (n *recordingNotifier) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.sent...)
}

func TestUpdatePlan(t *testing.T) {
	n := &recordingNotifier{}
	d := &testDeps{Notifier: n}
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(planTools(d)...); err != nil {
		t.Fatal(err)
	}
	env := call(t, r, "update_plan", map[string]any{
		"explanation": "Tests next.",
		"plan": []map[string]any{
			{"step": "Reproduce", "status": "completed"},
			{"step": "Fix", "status": "in_progress"},
			{"step": "Test", "status": "pending"},
		},
	})
	want := "Plan updated: 1 of 3 steps completed.\nTests next.\n[x] 1. Reproduce\n[>] 2. Fix  (in progress)\n[ ] 3. Test"
	if env.Code != toolbridge.CodeOK || env.Text != want {
		t.Fatalf("update_plan = %s %q, want %q", env.Code, env.Text, want)
	}
	sent := n.all()
	wantNote := `PlanChanged {"explanation":"Tests next.","steps":[{"step":"Reproduce","status":"completed"},{"step":"Fix","status":"in_progress"},{"step":"Test","status":"pending"}]}`
	if len(sent) != 1 || sent[0] != wantNote {
		t.Errorf("notifications = %q, want %q", sent, wantNote)
	}

	env = call(t, r, "update_plan", map[string]any{"plan": []map[string]any{
		{"step": "A", "status": "in_progress"}, {"step": "B", "status": "in_progress"},
	}})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, `1 ("A"), 2 ("B")`) {
		t.Errorf("two steps in progress = %s %q, want invalid_input naming both", env.Code, env.Text)
	}
	env = call(t, r, "update_plan", map[string]any{"plan": []map[string]any{{"step": "A", "status": "done"}}})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "pending, in_progress, completed") {
		t.Errorf("bad status = %s %q, want invalid_input listing the statuses", env.Code, env.Text)
	}
	if len(n.all()) != 1 {
		t.Errorf("a refused plan was sent to the editor: %q", n.all())
	}
}

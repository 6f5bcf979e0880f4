package session

import (
	"context"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/toolbridge"
)

type recordingPrompter struct{ asked []toolbridge.Prompt }

func (p *recordingPrompter) Prompt(_ context.Context, q toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	p.asked = append(p.asked, q)
	return toolbridge.PromptAnswer{OptionID: toolbridge.ApproveSession}, nil
}

// TestApprovalInPlainWords: the exec boundary's question names the command,
// why whale asks in words, the program and folder, and what "for this
// session" allows — no task id, no rule syntax.
func TestApprovalInPlainWords(t *testing.T) {
	p := &recordingPrompter{}
	ans, err := NewApprover(p).Approve(context.Background(), execboundary.Approval{
		TaskID: "t3", Command: "rm -rf build && make", Program: "/usr/bin/rm", Argv: []string{"rm", "-rf", "build"}, Cwd: "/home/u/project",
		Rule: "rm [any of: -*[rRf]*, --recursive, --force] → ask", Why: "`rm` with `-rf` deletes files recursively or without asking",
	})
	if err != nil || ans != execboundary.AllowSession || len(p.asked) != 1 {
		t.Fatalf("Approve = %v, %v after %d prompts; want allow_session after one", ans, err, len(p.asked))
	}
	q := p.asked[0]
	if q.Title != "Allow `rm -rf build`?" {
		t.Errorf("Title = %q, want %q", q.Title, "Allow `rm -rf build`?")
	}
	for _, want := range []string{"whale asks because `rm` with `-rf` deletes files recursively or without asking.", "Command: rm -rf build && make", "Program: /usr/bin/rm", "Folder: /home/u/project", "this same command in this folder"} {
		if !strings.Contains(q.Detail, want) {
			t.Errorf("Detail = %q, want it to contain %q", q.Detail, want)
		}
	}
	for _, not := range []string{"t3", "[rRf]", "→"} {
		if strings.Contains(q.Title+q.Detail, not) {
			t.Errorf("prompt %q / %q shows %q", q.Title, q.Detail, not)
		}
	}
	if got := q.Options[1]; got.ID != toolbridge.ApproveSession || got.Label != "Allow this command for this session" {
		t.Errorf("session option = %+v", got)
	}
}

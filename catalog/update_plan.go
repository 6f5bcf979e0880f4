package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed update_plan.md
var updatePlanDoc string

// Step statuses of a plan (and of todos).
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// planStore holds the session's plan.
type planStore struct {
	mu   sync.Mutex
	plan toolbridge.Plan
}

// Bounds of a plan: it is shown whole after every update.
const (
	planMaxSteps       = 100
	planMaxStep        = 1000
	planMaxExplanation = 4000
)

type updatePlanInput struct {
	Explanation string                `json:"explanation"`
	Plan        []toolbridge.PlanStep `json:"plan"`
}

// UpdatePlan is update_plan: the model's plan for the task, kept for the
// session and shown to the user through n (nil: no editor to show it).
func UpdatePlan(n toolbridge.Notifier) toolbridge.Tool {
	store := &planStore{}
	spec := toolbridge.Spec{
		Name:        "update_plan",
		Description: updatePlanDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupPlan,
		InputSchema: toolbridge.Object([]string{"plan"}, map[string]*toolbridge.Schema{
			"explanation": toolbridge.Str("Optional: why the plan is what it is, or what changed since the last update."),
			"plan": toolbridge.Arr("The whole plan, in order (at most 100 steps); it replaces the previous one.", toolbridge.Object([]string{"step", "status"}, map[string]*toolbridge.Schema{
				"step":   toolbridge.Str("What the step does, in a short sentence (at most 1000 bytes)."),
				"status": toolbridge.Enum("Where the step stands.", StatusPending, StatusInProgress, StatusCompleted),
			})),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in updatePlanInput) (toolbridge.Result, error) {
		if err := toolbridge.TooLong("explanation", strings.TrimSpace(in.Explanation), planMaxExplanation, "explain the plan in a few sentences"); err != nil {
			return toolbridge.Result{}, err
		}
		if len(in.Plan) > planMaxSteps {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "the plan has %d steps; it may have up to %d — group small steps into larger ones", len(in.Plan), planMaxSteps)
		}
		var active []string
		for i, s := range in.Plan {
			in.Plan[i].Step = strings.TrimSpace(s.Step)
			if in.Plan[i].Step == "" {
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "plan[%d].step is empty; describe every step in a few words", i)
			}
			if err := toolbridge.TooLong(fmt.Sprintf("plan[%d].step", i), in.Plan[i].Step, planMaxStep, "describe the step in a short sentence"); err != nil {
				return toolbridge.Result{}, err
			}
			if s.Status == StatusInProgress {
				active = append(active, fmt.Sprintf("%d (%s)", i+1, excerpt.Quote(in.Plan[i].Step)))
			}
		}
		if len(active) > 1 {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "steps %s are all in_progress, but at most one step may be in progress; mark the one you are working on in_progress and the others pending or completed", strings.Join(active, ", "))
		}
		plan := toolbridge.Plan{Explanation: strings.TrimSpace(in.Explanation), Steps: append([]toolbridge.PlanStep{}, in.Plan...)}
		store.mu.Lock()
		store.plan = plan
		store.mu.Unlock()
		if n != nil {
			n.PlanChanged(plan)
		}
		return toolbridge.Result{Text: renderPlan(plan), Data: plan}, nil
	})
}

// renderPlan shows the plan as a checklist with a progress line.
func renderPlan(p toolbridge.Plan) string {
	if len(p.Steps) == 0 {
		return "The plan is empty (cleared)."
	}
	done := 0
	for _, s := range p.Steps {
		if s.Status == StatusCompleted {
			done++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Plan updated: %d of %d steps completed.\n", done, len(p.Steps))
	if p.Explanation != "" {
		b.WriteString(p.Explanation + "\n")
	}
	for i, s := range p.Steps {
		mark := "[ ]"
		switch s.Status {
		case StatusCompleted:
			mark = "[x]"
		case StatusInProgress:
			mark = "[>]"
		}
		fmt.Fprintf(&b, "%s %d. %s", mark, i+1, s.Step)
		if s.Status == StatusInProgress {
			b.WriteString("  (in progress)")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

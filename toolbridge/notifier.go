package toolbridge

import "time"

// Notifier tells the editor about state the user watches beside the chat.
// It is nil when no editor is attached. Its methods never block on the
// editor for long and drop nothing silently (the sender logs failures); the
// front end picks the wire method and payload.
type Notifier interface {
	// PlanChanged reports the plan update_plan just set.
	PlanChanged(p Plan)
	// TodosChanged reports the whole todo list after a change.
	TodosChanged(items []TodoItem)
	// ChangesJournaled reports that the journal of changes gained an entry,
	// latest (an edit, a shell task, a revert), so that views of it refresh.
	ChangesJournaled(latest string)
}

// Plan is a session's current plan, as update_plan last set it; its JSON is
// also the tool result's data.
type Plan struct {
	Explanation string     `json:"explanation"`
	Steps       []PlanStep `json:"steps"`
}

// PlanStep is one step of a Plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// TodoItem is one entry of the todo list as the editor is told it: the
// fields of todos.Item, declared here so that the contract does not depend
// on the store (a todos.Item converts to it directly).
type TodoItem struct {
	ID       int       `json:"id"`
	Content  string    `json:"content"`
	Status   string    `json:"status"`
	Priority string    `json:"priority"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/todos"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed todo_add.md
var todoAddDoc string

type todoAddInput struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
}

// TodoAdd is todo_add: adds a todo to the workspace's list. The list lives in store, so it outlives the
// session; n, when set, is told the whole list after a change.
func TodoAdd(store *todos.Store, n toolbridge.Notifier) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name: "todo_add", Description: todoAddDoc, Group: toolbridge.GroupTodo,
		InputSchema: toolbridge.Object([]string{"content"}, map[string]*toolbridge.Schema{
			"content":  toolbridge.Str("What is to be done, in one sentence (at most 2000 bytes)."),
			"priority": todoPriority,
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in todoAddInput) (toolbridge.Result, error) {
		content := strings.TrimSpace(in.Content)
		if content == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "content is empty; say what is to be done")
		}
		if err := toolbridge.TooLong("content", content, todoMaxContent, todoContentAdvice); err != nil {
			return toolbridge.Result{}, err
		}
		prio := in.Priority
		if prio == "" {
			prio = todos.PriorityMedium
		}
		var added todos.Item
		f, warn, err := store.Update(func(f *todos.List) (bool, error) {
			now := time.Now().UTC()
			added = todos.Item{ID: f.NextID, Content: content, Status: StatusPending, Priority: prio, Created: now, Updated: now}
			f.NextID++
			f.Items = append(f.Items, added)
			return true, nil
		})
		if err != nil {
			return toolbridge.Result{}, storeFailure(err)
		}
		return todoResult(n, f, fmt.Sprintf("Added todo #%d.", added.ID), warn, true), nil
	})
}

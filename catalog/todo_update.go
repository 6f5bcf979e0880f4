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

//go:embed todo_update.md
var todoUpdateDoc string

type todoUpdateInput struct {
	ID       int     `json:"id"`
	Status   string  `json:"status"`
	Content  *string `json:"content"`
	Priority string  `json:"priority"`
}

// TodoUpdate is todo_update: changes a todo's content, status or priority. The list lives in store, so it outlives the
// session; n, when set, is told the whole list after a change.
func TodoUpdate(store *todos.Store, n toolbridge.Notifier) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name: "todo_update", Description: todoUpdateDoc, Group: toolbridge.GroupTodo,
		InputSchema: toolbridge.Object([]string{"id"}, map[string]*toolbridge.Schema{
			"id":       toolbridge.Int("The todo's id, as todo_list shows it (#3 is 3).", 1),
			"status":   todoStatus,
			"content":  toolbridge.Str("New wording of the todo."),
			"priority": todoPriority,
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in todoUpdateInput) (toolbridge.Result, error) {
		if in.Status == "" && in.Content == nil && in.Priority == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "nothing to change for todo #%d; give status, content or priority", in.ID)
		}
		if in.Content != nil && strings.TrimSpace(*in.Content) == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "content is empty; give the new wording, or leave content out")
		}
		if in.Content != nil {
			if err := toolbridge.TooLong("content", strings.TrimSpace(*in.Content), todoMaxContent, todoContentAdvice); err != nil {
				return toolbridge.Result{}, err
			}
		}
		var what []string
		f, warn, err := store.Update(func(f *todos.List) (bool, error) {
			i, err := findTodo(f, in.ID)
			if err != nil {
				return false, err
			}
			it := &f.Items[i]
			if in.Status != "" && in.Status != it.Status {
				what = append(what, fmt.Sprintf("status %s → %s", it.Status, in.Status))
				it.Status = in.Status
			}
			if in.Content != nil && strings.TrimSpace(*in.Content) != it.Content {
				it.Content = strings.TrimSpace(*in.Content)
				what = append(what, "content")
			}
			if in.Priority != "" && in.Priority != it.Priority {
				what = append(what, fmt.Sprintf("priority %s → %s", it.Priority, in.Priority))
				it.Priority = in.Priority
			}
			if len(what) == 0 {
				return false, nil
			}
			it.Updated = time.Now().UTC()
			return true, nil
		})
		if err != nil {
			return toolbridge.Result{}, storeFailure(err)
		}
		if len(what) == 0 {
			return todoResult(n, f, fmt.Sprintf("Todo #%d already looks like that; nothing changed.", in.ID), warn, warn != ""), nil
		}
		return todoResult(n, f, fmt.Sprintf("Updated todo #%d: %s.", in.ID, strings.Join(what, ", ")), warn, true), nil
	})
}

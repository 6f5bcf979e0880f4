package catalog

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/whale-ls/whale-ls/todos"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed todo_remove.md
var todoRemoveDoc string

type todoRemoveInput struct {
	ID int `json:"id"`
}

// TodoRemove is todo_remove: removes a todo. The list lives in store, so it outlives the
// session; n, when set, is told the whole list after a change.
func TodoRemove(store *todos.Store, n toolbridge.Notifier) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name: "todo_remove", Description: todoRemoveDoc, Group: toolbridge.GroupTodo,
		InputSchema: toolbridge.Object([]string{"id"}, map[string]*toolbridge.Schema{
			"id": toolbridge.Int("The todo's id, as todo_list shows it (#3 is 3).", 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in todoRemoveInput) (toolbridge.Result, error) {
		var removed todos.Item
		f, warn, err := store.Update(func(f *todos.List) (bool, error) {
			i, err := findTodo(f, in.ID)
			if err != nil {
				return false, err
			}
			removed = f.Items[i]
			f.Items = append(f.Items[:i], f.Items[i+1:]...)
			return true, nil
		})
		if err != nil {
			return toolbridge.Result{}, storeFailure(err)
		}
		return todoResult(n, f, fmt.Sprintf("Removed todo #%d (%s).", removed.ID, removed.Content), warn, true), nil
	})
}

package catalog

import (
	"context"
	_ "embed"

	"github.com/whale-ls/whale-ls/todos"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed todo_list.md
var todoListDoc string

// TodoList is todo_list: shows the workspace's list. The list lives in store, so it outlives the
// session; n, when set, is told the whole list after a change.
func TodoList(store *todos.Store, n toolbridge.Notifier) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name: "todo_list", Description: todoListDoc, Group: toolbridge.GroupTodo, ReadOnly: true,
		InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, _ struct{}) (toolbridge.Result, error) {
		f, warn, err := store.Update(func(*todos.List) (bool, error) { return false, nil })
		if err != nil {
			return toolbridge.Result{}, storeFailure(err)
		}
		return todoResult(n, f, "", warn, warn != ""), nil
	})
}

package catalog

import (
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/todos"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// todoResult renders the list after an operation and tells the editor.
func todoResult(n toolbridge.Notifier, f todos.List, headline, warning string, changed bool) toolbridge.Result {
	if changed && n != nil {
		n.TodosChanged(todoItems(f.Items))
	}
	var b strings.Builder
	if warning != "" {
		b.WriteString(warning + "\n")
	}
	if headline != "" {
		b.WriteString(headline + "\n")
	}
	b.WriteString(renderTodos(f.Items))
	return toolbridge.Result{Text: b.String(), Data: map[string]any{"items": itemsOrEmpty(f.Items)}}
}

// todoItems converts the store's items to the contract's, for the Notifier.
func todoItems(items []todos.Item) []toolbridge.TodoItem {
	out := make([]toolbridge.TodoItem, 0, len(items))
	for _, it := range items {
		out = append(out, toolbridge.TodoItem(it))
	}
	return out
}

func itemsOrEmpty(items []todos.Item) []todos.Item {
	if items == nil {
		return []todos.Item{}
	}
	return items
}

// renderTodos lists the todos, open ones first, with their ids.
func renderTodos(items []todos.Item) string {
	if len(items) == 0 {
		return "The todo list is empty."
	}
	open := 0
	for _, it := range items {
		if it.Status != StatusCompleted {
			open++
		}
	}
	sorted := append([]todos.Item(nil), items...)
	done := func(it todos.Item) int {
		if it.Status == StatusCompleted {
			return 1
		}
		return 0
	}
	sort.SliceStable(sorted, func(i, j int) bool { return done(sorted[i]) < done(sorted[j]) })
	var b strings.Builder
	fmt.Fprintf(&b, "Todos: %d open, %d completed.\n", open, len(items)-open)
	for _, it := range sorted {
		mark := "[ ]"
		switch it.Status {
		case StatusCompleted:
			mark = "[x]"
		case StatusInProgress:
			mark = "[>]"
		}
		fmt.Fprintf(&b, "%s #%d %s", mark, it.ID, it.Content)
		if it.Priority != todos.PriorityMedium && it.Priority != "" {
			fmt.Fprintf(&b, " (%s priority)", it.Priority)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// findTodo returns the index of the item with id, or a not_found Failure that
// lists the ids there are.
func findTodo(f *todos.List, id int) (int, error) {
	var ids []string
	for i, it := range f.Items {
		if it.ID == id {
			return i, nil
		}
		ids = append(ids, fmt.Sprintf("#%d", it.ID))
	}
	if len(ids) == 0 {
		return -1, toolbridge.Fail(toolbridge.CodeNotFound, "there is no todo #%d: the list is empty; add one with todo_add", id)
	}
	return -1, toolbridge.Fail(toolbridge.CodeNotFound, "there is no todo #%d; the ids are %s — check them with todo_list", id, strings.Join(ids, ", "))
}

// storeFailure turns a storage fault into a Failure the model can act on.
func storeFailure(err error) error {
	var f *toolbridge.Failure
	if errors.As(err, &f) {
		return err
	}
	return toolbridge.Fail(toolbridge.CodeNotConfigured, "the todo list cannot be stored: %v; carry on without it and tell the user", err)
}

var todoStatus = toolbridge.Enum("Where the todo stands.", StatusPending, StatusInProgress, StatusCompleted)
var todoPriority = toolbridge.Enum("How important it is (default medium).", todos.PriorityHigh, todos.PriorityMedium, todos.PriorityLow)

// todoMaxContent bounds a todo's wording: every todo result lists them all.
const todoMaxContent = 2000

const todoContentAdvice = "say what is to be done in a sentence or two, and keep details in a file"

package toolbridge

// Notifier sends a notification to the editor (whale/plan, whale/todos, …).
// It is nil when no editor is attached; Notify never blocks on the editor
// for long and drops nothing silently (failures are logged by the sender).
type Notifier interface {
	Notify(method string, params any)
}

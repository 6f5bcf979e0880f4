package catalog

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed todo_add.md
var todoAddDoc string

//go:embed todo_list.md
var todoListDoc string

//go:embed todo_update.md
var todoUpdateDoc string

//go:embed todo_remove.md
var todoRemoveDoc string

// Todo priorities.
const (
	PriorityHigh   = "high"
	PriorityMedium = "medium"
	PriorityLow    = "low"
)

// TodoItem is one todo, as stored and as whale/todos sends it.
type TodoItem struct {
	ID       int       `json:"id"`
	Content  string    `json:"content"`
	Status   string    `json:"status"`
	Priority string    `json:"priority"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// todoFile is the on-disk form of a workspace's todos.
type todoFile struct {
	Version int        `json:"version"`
	NextID  int        `json:"nextId"`
	Items   []TodoItem `json:"items"`
}

// todoTools is the todo group: todo_add, todo_list, todo_update,
// todo_remove. The list is kept per workspace under the user's state
// folder, so it outlives the session.
func todoTools(d *Deps) []toolbridge.Tool {
	st := &todoStore{d: d}
	return []toolbridge.Tool{todoAddTool(d, st), todoListTool(d, st), todoUpdateTool(d, st), todoRemoveTool(d, st)}
}

// todoStore reads and writes a workspace's todos.json. Every operation
// re-reads the file under an exclusive lock (another whale-ls of the same
// workspace may have changed it), and every change is written to a temp
// file, synced and renamed over the old one.
type todoStore struct {
	d *Deps

	mu sync.Mutex // serialises operations of this process; flock the others
}

// stateHome is $XDG_STATE_HOME, or ~/.local/state.
func stateHome() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return x, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state folder: XDG_STATE_HOME is not set and %w", err)
	}
	return filepath.Join(home, ".local", "state"), nil
}

// workspaceID names a workspace's state folder: the first root's base name
// and a hash of all the roots' real paths.
func workspaceID(d *Deps) (string, error) {
	if d.Workspace == nil || len(d.Workspace.Roots()) == 0 {
		return "", errors.New("no workspace folder is open")
	}
	var reals []string
	for _, r := range d.Workspace.Roots() {
		reals = append(reals, r.Real)
	}
	base := filepath.Base(reals[0])
	sort.Strings(reals)
	sum := sha256.Sum256([]byte(strings.Join(reals, "\n")))
	clean := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, base)
	if len(clean) > 40 {
		clean = clean[:40]
	}
	return clean + "-" + hex.EncodeToString(sum[:8]), nil
}

// dir returns the workspace's state folder, created 0700.
func (s *todoStore) dir() (string, error) {
	home, err := stateHome()
	if err != nil {
		return "", err
	}
	id, err := workspaceID(s.d)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(home, "whale-ls", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the todo folder: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("protect the todo folder: %w", err)
	}
	return dir, nil
}

// update runs fn on the current list under the locks and writes the list
// back when fn reports a change. warning is set when a corrupted file was
// moved aside.
func (s *todoStore) update(fn func(f *todoFile) (changed bool, err error)) (f todoFile, warning string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir, err := s.dir()
	if err != nil {
		return f, "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "todos.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return f, "", fmt.Errorf("open the todo lock: %w", err)
	}
	defer lock.Close()
	if err := lockTodos(lock); err != nil {
		return f, "", fmt.Errorf("lock the todo list: %w", err)
	}
	defer unlockTodos(lock)

	path := filepath.Join(dir, "todos.json")
	f, warning, err = s.load(path)
	if err != nil {
		return f, warning, err
	}
	changed, err := fn(&f)
	if err != nil || !changed {
		return f, warning, err
	}
	return f, warning, writeTodoFile(path, f)
}

// load reads the list; a missing file is an empty list, a corrupted one is
// renamed aside (never overwritten) and reported in warning.
func (s *todoStore) load(path string) (todoFile, string, error) {
	empty := todoFile{Version: 1, NextID: 1}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, "", nil
	}
	if err != nil {
		return empty, "", fmt.Errorf("read the todo list: %w", err)
	}
	var f todoFile
	perr := json.Unmarshal(b, &f)
	if perr == nil {
		perr = f.check()
	}
	if perr == nil {
		if f.NextID < 1 {
			f.NextID = 1
		}
		for _, it := range f.Items {
			f.NextID = max(f.NextID, it.ID+1)
		}
		return f, "", nil
	}
	aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
	if err := os.Rename(path, aside); err != nil {
		return empty, "", fmt.Errorf("the todo list %s is corrupted (%v) and could not be moved aside (%w); fix or remove the file by hand", path, perr, err)
	}
	s.d.logger().Warn("corrupted todo list moved aside", "file", path, "moved_to", aside, "err", perr)
	return empty, fmt.Sprintf("Warning: the saved todo list was unreadable (%v); it was moved to %s and a new list was started.", perr, aside), nil
}

// check rejects lists a newer or broken writer left behind.
func (f todoFile) check() error {
	if f.Version != 1 {
		return fmt.Errorf("unknown version %d", f.Version)
	}
	seen := map[int]bool{}
	for _, it := range f.Items {
		if it.ID < 1 || seen[it.ID] {
			return fmt.Errorf("bad or repeated id %d", it.ID)
		}
		seen[it.ID] = true
	}
	return nil
}

// writeTodoFile writes the list atomically: temp file 0600 in the same
// folder, fsync, rename, fsync of the folder.
func writeTodoFile(path string, f todoFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".todos-*.tmp")
	if err != nil {
		return fmt.Errorf("write the todo list: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write the todo list: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write the todo list: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the todo list: %w", err)
	}
	if df, err := os.Open(dir); err == nil {
		df.Sync()
		df.Close()
	}
	return nil
}

// result renders the list after an operation and tells the editor.
func (s *todoStore) result(f todoFile, headline, warning string, changed bool) toolbridge.Result {
	if changed && s.d.Notifier != nil {
		s.d.Notifier.Notify("whale/todos", map[string]any{"items": itemsOrEmpty(f.Items)})
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

func itemsOrEmpty(items []TodoItem) []TodoItem {
	if items == nil {
		return []TodoItem{}
	}
	return items
}

// renderTodos lists the todos, open ones first, with their ids.
func renderTodos(items []TodoItem) string {
	if len(items) == 0 {
		return "The todo list is empty."
	}
	open := 0
	for _, it := range items {
		if it.Status != StatusCompleted {
			open++
		}
	}
	sorted := append([]TodoItem(nil), items...)
	done := func(it TodoItem) int {
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
		if it.Priority != PriorityMedium && it.Priority != "" {
			fmt.Fprintf(&b, " (%s priority)", it.Priority)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// find returns the index of the item with id, or a not_found Failure that
// lists the ids there are.
func (f *todoFile) find(id int) (int, error) {
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
var todoPriority = toolbridge.Enum("How important it is (default medium).", PriorityHigh, PriorityMedium, PriorityLow)

// todoMaxContent bounds a todo's wording: every todo result lists them all.
const todoMaxContent = 2000

const todoContentAdvice = "say what is to be done in a sentence or two, and keep details in a file"

type todoAddInput struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
}

func todoAddTool(d *Deps, st *todoStore) toolbridge.Tool {
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
			prio = PriorityMedium
		}
		var added TodoItem
		f, warn, err := st.update(func(f *todoFile) (bool, error) {
			now := time.Now().UTC()
			added = TodoItem{ID: f.NextID, Content: content, Status: StatusPending, Priority: prio, Created: now, Updated: now}
			f.NextID++
			f.Items = append(f.Items, added)
			return true, nil
		})
		if err != nil {
			return toolbridge.Result{}, storeFailure(err)
		}
		return st.result(f, fmt.Sprintf("Added todo #%d.", added.ID), warn, true), nil
	})
}

func todoListTool(d *Deps, st *todoStore) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name: "todo_list", Description: todoListDoc, Group: toolbridge.GroupTodo, ReadOnly: true,
		InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, _ struct{}) (toolbridge.Result, error) {
		f, warn, err := st.update(func(*todoFile) (bool, error) { return false, nil })
		if err != nil {
			return toolbridge.Result{}, storeFailure(err)
		}
		return st.result(f, "", warn, warn != ""), nil
	})
}

type todoUpdateInput struct {
	ID       int     `json:"id"`
	Status   string  `json:"status"`
	Content  *string `json:"content"`
	Priority string  `json:"priority"`
}

func todoUpdateTool(d *Deps, st *todoStore) toolbridge.Tool {
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
		f, warn, err := st.update(func(f *todoFile) (bool, error) {
			i, err := f.find(in.ID)
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
			return st.result(f, fmt.Sprintf("Todo #%d already looks like that; nothing changed.", in.ID), warn, warn != ""), nil
		}
		return st.result(f, fmt.Sprintf("Updated todo #%d: %s.", in.ID, strings.Join(what, ", ")), warn, true), nil
	})
}

type todoRemoveInput struct {
	ID int `json:"id"`
}

func todoRemoveTool(d *Deps, st *todoStore) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name: "todo_remove", Description: todoRemoveDoc, Group: toolbridge.GroupTodo,
		InputSchema: toolbridge.Object([]string{"id"}, map[string]*toolbridge.Schema{
			"id": toolbridge.Int("The todo's id, as todo_list shows it (#3 is 3).", 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in todoRemoveInput) (toolbridge.Result, error) {
		var removed TodoItem
		f, warn, err := st.update(func(f *todoFile) (bool, error) {
			i, err := f.find(in.ID)
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
		return st.result(f, fmt.Sprintf("Removed todo #%d (%s).", removed.ID, removed.Content), warn, true), nil
	})
}

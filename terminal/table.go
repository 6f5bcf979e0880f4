package terminal

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/shellcmd"
)

// Defaults of the settings and limits.
const (
	DefaultYield        = 15 * time.Second
	LongRunningYield    = 3 * time.Second
	DefaultOutputLimit  = 1 << 20
	DefaultMaxLive      = 32
	DefaultReleaseAfter = 5 * time.Minute
	defaultCols         = 120
	defaultRows         = 30
)

// Mode chooses a task's transport.
type Mode string

// Transports: ModeAuto picks a PTY for interactive and credential-asking
// commands and a pipe otherwise.
const (
	ModeAuto Mode = "auto"
	ModePipe Mode = "pipe"
	ModePTY  Mode = "pty"
)

// Settings are the user-facing shell settings (shell.program,
// shell.yieldTimeMs, shell.outputLimitBytes). Zero values mean the defaults.
type Settings struct {
	// Shell runs each command as `Shell -c COMMAND`; default /bin/bash when
	// it exists, else /bin/sh. On Windows the default is PowerShell (pwsh
	// when it is on PATH, else powershell.exe, run with -EncodedCommand),
	// and cmd.exe runs the command with /d /s /c.
	Shell string
	// YieldTimeMs is how long shell_run waits in the foreground by default.
	YieldTimeMs int
	// OutputLimitBytes bounds each task's buffer of model text.
	OutputLimitBytes int
}

// Options configure a Table.
type Options struct {
	Settings Settings
	// Sink receives every task's terminal stream; nil sends it nowhere.
	Sink Sink
	// MaxLive bounds the tasks running at once (default 32).
	MaxLive int
	// ReleaseAfter is how long an exited task stays after the model read its
	// last output (default 5 minutes). Exited tasks nobody reads are released
	// after six times as long.
	ReleaseAfter time.Duration
	// Ephemeral says the tasks end with this process (a one-shot command
	// line): results of tasks still running tell the model so.
	Ephemeral bool
	// Supervisor, when set, is the argv of a program that calls Supervise
	// (typically this executable with a hidden subcommand). Each task's
	// shell then runs as `Supervisor… --status-fd 3 -- SHELL -c COMMAND`
	// (on Linux; without --status-fd elsewhere): the supervisor reports the
	// shell's exit on fd 3 and stays while processes the task started live,
	// so they stay in reach (Status.Survivors, Cancel), and the task's whole
	// tree dies with the server even if the server is killed (SIGKILL)
	// without Close. Without it only the shell gets the parent-death signal.
	Supervisor []string
}

// StartOptions describe one task.
type StartOptions struct {
	Command string
	// Parsed is the command's parse when the caller has one
	// (shellcmd.ParseLine of Command, trimmed); the task classifies the
	// command with it and the gate reads it (GateTask.Parsed), so that
	// the command is parsed once. A parse of another text is not used.
	Parsed *shellcmd.Line
	// Dir is the working directory, already checked by the caller.
	Dir  string
	Mode Mode
	// Env holds extra KEY=VALUE entries; they override the server's own.
	Env []string
	// Cols and Rows size the PTY (default 120×30).
	Cols, Rows int
	// Title is the terminal's title; default a shortened command.
	Title string
	// Gate, when set, starts the shell process in place of cmd.Start.
	Gate Gate
	// Sandbox, when set and active, confines the task: the Gate's helper
	// applies it (GateTask.Confinement) in the network namespace the task
	// starts in. A sandboxed task without a Gate is refused.
	Sandbox *sandbox.Policy
}

// TaskInfo describes a task's terminal. It has no wire form of its own: a
// front end that shows terminals converts it to its payload.
type TaskInfo struct {
	ID      string
	Title   string
	Command string
	Dir     string
	PTY     bool
	Cols    int
	Rows    int
}

// State is whether a task still runs.
type State string

// The states of a task.
const (
	StateRunning State = "running"
	StateExited  State = "exited"
)

// Status is a snapshot of a task.
type Status struct {
	TaskInfo
	State       State  `json:"state"`
	ExitCode    int    `json:"exitCode"`
	Signal      string `json:"signal,omitempty"`
	Canceled    bool   `json:"canceled,omitempty"`
	LongRunning bool   `json:"longRunning,omitempty"`
	ElapsedMs   int64  `json:"elapsedMs"`
	// Survivors are the processes the task started that still run after
	// its shell exited: jobs left with `&`, `nohup` and `setsid` daemons,
	// double-forked grandchildren. Always empty while State is "running".
	// They end with Cancel, with Close, and with the server.
	Survivors []Process `json:"survivors,omitempty"`
}

// Process is one live process of a task, as /proc shows it.
type Process struct {
	PID int `json:"pid"`
	// Command is its argv joined with spaces, shortened to about 120
	// characters.
	Command string `json:"command"`
}

// Errors of the Table. They are wrapped with details; test them with
// errors.Is.
var (
	ErrNotFound     = errors.New("no such task")
	ErrTooManyTasks = errors.New("too many running tasks")
	ErrClosed       = errors.New("terminal table is closed")
	ErrGate         = errors.New("the exec gate refused to start the command")
	ErrNotRunning   = errors.New("task is not running")
)

// CommandTooLongError is what Start returns for a command the kernel would
// not pass to the shell: longer than one argument may be (checked before
// anything starts, where the limit is known), or refused by the exec with
// E2BIG.
type CommandTooLongError struct {
	// Bytes is the command's length.
	Bytes int
	// Limit is the most bytes a command may have here; 0 when only the
	// exec's failure told.
	Limit int
}

func (e *CommandTooLongError) Error() string {
	if e.Limit > 0 {
		return fmt.Sprintf("the command is %d bytes, more than the %d bytes the kernel passes to a program as one argument", e.Bytes, e.Limit)
	}
	return fmt.Sprintf("the command (%d bytes) with the environment is more than the kernel passes to a program (E2BIG)", e.Bytes)
}

// Table owns the shell tasks of one server. It is safe for concurrent use.
type Table struct {
	sink         Sink
	maxLive      int
	releaseAfter time.Duration
	ephemeral    bool
	supervisor   []string
	stopReaper   chan struct{}
	reaperDone   chan struct{}

	mu       sync.Mutex
	settings Settings
	tasks    map[string]*Task
	next     int
	sessions map[int]bool // every task session, for reaping orphans
	closed   bool
}

// NewTable makes a Table and starts its zombie reaper.
func NewTable(o Options) *Table {
	t := &Table{
		sink:         o.Sink,
		maxLive:      o.MaxLive,
		releaseAfter: o.ReleaseAfter,
		ephemeral:    o.Ephemeral,
		supervisor:   append([]string(nil), o.Supervisor...),
		stopReaper:   make(chan struct{}),
		reaperDone:   make(chan struct{}),
		tasks:        map[string]*Task{},
		sessions:     map[int]bool{},
	}
	if t.maxLive <= 0 {
		t.maxLive = DefaultMaxLive
	}
	if t.releaseAfter <= 0 {
		t.releaseAfter = DefaultReleaseAfter
	}
	t.SetSettings(o.Settings)
	go t.reaper()
	return t
}

// SetSettings replaces the settings; tasks already running keep theirs.
func (t *Table) SetSettings(s Settings) {
	if s.Shell == "" {
		s.Shell = defaultShell()
	}
	if s.YieldTimeMs <= 0 {
		s.YieldTimeMs = int(DefaultYield / time.Millisecond)
	}
	if s.OutputLimitBytes <= 0 {
		s.OutputLimitBytes = DefaultOutputLimit
	}
	t.mu.Lock()
	t.settings = s
	t.mu.Unlock()
}

// Settings returns the settings in force, defaults filled in.
func (t *Table) Settings() Settings {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.settings
}

// Ephemeral reports Options.Ephemeral.
func (t *Table) Ephemeral() bool { return t.ephemeral }

// Start starts a task. It fails with ErrTooManyTasks when MaxLive tasks are
// running, with *CommandTooLongError when the command is longer than the
// kernel passes to the shell, with ErrGate when the Gate refused, and with
// ErrClosed after Close.
func (t *Table) Start(o StartOptions) (*Task, error) {
	t.sweep()
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, ErrClosed
	}
	var live []string
	for id, task := range t.tasks {
		if task.Running() {
			live = append(live, id)
		}
	}
	if len(live) >= t.maxLive {
		t.mu.Unlock()
		sortIDs(live)
		return nil, fmt.Errorf("%w: %d tasks are running (%s)", ErrTooManyTasks, len(live), strings.Join(live, ", "))
	}
	t.next++
	id := "t" + strconv.Itoa(t.next)
	settings := t.settings
	t.mu.Unlock()

	task, err := startTask(id, o, settings, t.sink, t.supervisor)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		task.kill()
		return nil, ErrClosed
	}
	t.tasks[id] = task
	t.sessions[task.pid] = true
	t.mu.Unlock()
	return task, nil
}

// Get returns a task that has not been released.
func (t *Table) Get(id string) (*Task, error) {
	t.sweep()
	t.mu.Lock()
	defer t.mu.Unlock()
	task, ok := t.tasks[strings.TrimSpace(id)]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return task, nil
}

// List returns every task not yet released, in start order.
func (t *Table) List() []Status {
	t.sweep()
	t.mu.Lock()
	tasks := make([]*Task, 0, len(t.tasks))
	for _, task := range t.tasks {
		tasks = append(tasks, task)
	}
	t.mu.Unlock()
	slices.SortFunc(tasks, func(a, b *Task) int { return taskNum(a.info.ID) - taskNum(b.info.ID) })
	out := make([]Status, 0, len(tasks))
	for _, task := range tasks {
		out = append(out, task.Status())
	}
	return out
}

// Input writes raw bytes typed in the editor's terminal to the task.
func (t *Table) Input(id, data string) error {
	task, err := t.Get(id)
	if err != nil {
		return err
	}
	return task.WriteRaw([]byte(data))
}

// Resize sets a PTY task's terminal size; it does nothing for pipe tasks.
func (t *Table) Resize(id string, cols, rows int) error {
	task, err := t.Get(id)
	if err != nil {
		return err
	}
	return task.Resize(cols, rows)
}

// Cancel stops a task's whole process tree (see Task.Cancel).
func (t *Table) Cancel(id string) (CancelReport, error) {
	task, err := t.Get(id)
	if err != nil {
		return CancelReport{}, err
	}
	return task.Cancel(), nil
}

// Close kills the process tree of every task (SIGTERM, then SIGKILL after a
// short grace), waits until none of their processes is left (up to a few
// seconds), reaps them and stops the reaper. Later Starts fail. Servers call
// it on shutdown, on stdin EOF and on SIGTERM.
func (t *Table) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	tasks := make([]*Task, 0, len(t.tasks))
	for _, task := range t.tasks {
		tasks = append(tasks, task)
	}
	sessions := maps(t.sessions)
	t.mu.Unlock()

	for _, task := range tasks {
		task.markCanceled()
		task.signalTree(syscall.SIGTERM)
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) && anyAlive(tasks) {
		time.Sleep(20 * time.Millisecond)
	}
	deadline = time.Now().Add(5 * time.Second)
	for anyAlive(tasks) && time.Now().Before(deadline) {
		for _, task := range tasks {
			task.signalTree(syscall.SIGKILL)
		}
		reapOrphans(sessions)
		time.Sleep(20 * time.Millisecond)
	}
	for _, task := range tasks {
		select {
		case <-task.procDone:
		case <-time.After(2 * time.Second):
		}
		task.closeFiles()
	}
	reapOrphans(sessions)
	close(t.stopReaper)
	<-t.reaperDone
	return nil
}

func anyAlive(tasks []*Task) bool {
	for _, task := range tasks {
		if len(task.tree()) > 0 {
			return true
		}
	}
	return false
}

func maps(m map[int]bool) map[int]bool {
	out := make(map[int]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sweep releases exited tasks whose output was read long enough ago.
func (t *Table) sweep() {
	now := time.Now()
	var gone []*Task
	t.mu.Lock()
	for id, task := range t.tasks {
		if task.releasable(now, t.releaseAfter) {
			delete(t.tasks, id)
			gone = append(gone, task)
		}
	}
	t.mu.Unlock()
	for _, task := range gone {
		task.release()
	}
}

// reaper collects zombies re-parented from task sessions (the server is a
// subreaper) and releases old tasks.
func (t *Table) reaper() {
	defer close(t.reaperDone)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, childExitSignals...)
	defer signal.Stop(sig)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-t.stopReaper:
			return
		case <-sig:
		case <-tick.C:
			t.sweep()
		}
		t.mu.Lock()
		sessions := maps(t.sessions)
		t.mu.Unlock()
		reapOrphans(sessions)
	}
}

func taskNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "t"))
	return n
}

func sortIDs(ids []string) {
	slices.SortFunc(ids, func(a, b string) int { return taskNum(a) - taskNum(b) })
}

package session

import (
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/search"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// Options is what a front end knows when a session starts.
type Options struct {
	// Roots are the workspace folders; at least one.
	Roots []string
	// Editor, Prompter and Notifier reach the user; each is nil when the
	// front end has no such thing (whale-ls call has a Prompter only).
	Editor   toolbridge.Editor
	Prompter toolbridge.Prompter
	Notifier toolbridge.Notifier
	// Language reaches the editor's diagnostics and language servers; nil
	// when the editor offers none (the tools that need it are not listed).
	Language toolbridge.Language
	// Terminal configures the task table (sink, supervisor, ephemeral).
	Terminal terminal.Options
	// Settings are the initial settings (Apply changes them later).
	Settings settings.Settings
	// ExtraTools, when set, adds tools after the catalog's (the test tools
	// of a binary built for tests).
	ExtraTools func(env catalog.Env) []toolbridge.Tool
	Log        *slog.Logger
	// FileIndex keeps a live file index of each workspace folder for grep
	// and search_files while the setting search.index is on, and sets up
	// the watch on the toolchains' caches ahead of the first shell task
	// (long-lived front ends: the language server, MCP); a one-shot call
	// walks instead.
	FileIndex bool
}

// Session is one client's whale-ls: the workspace, the shell tasks, the
// exec boundary, the settings, and the registry of tools over them. It is
// safe for concurrent use.
type Session struct {
	Workspace *workspace.Set
	Terminals *terminal.Table
	Gate      *execboundary.Gate
	Registry  *toolbridge.Registry
	// Journal is the workspace's journal of changes; nil when it could not
	// be opened (no state folder), which the changes tools then say.
	Journal *changes.Journal
	// journalErr is why Journal is nil: changes are then refused unless
	// changes.required is false.
	journalErr error
	// Commits is the commit path every change of the session goes through.
	Commits *catalog.Committer

	settings atomic.Pointer[settings.Settings]
	log      *slog.Logger
	// fileIndex is Options.FileIndex: whether search.index may start indexes.
	fileIndex bool

	indexMu sync.Mutex
	// indexes holds the file index of each workspace root while
	// Options.FileIndex and search.index are on.
	indexes map[*workspace.Root]*search.Index
	// indexesClosed is set by Close: no index starts after it.
	indexesClosed bool

	closeMu sync.Mutex
	closers []func() // run by Close, the last registered first
	closed  bool
}

// New opens the workspace, starts the task table and the exec boundary,
// applies o.Settings and builds the catalog. The settings' missing approved
// or skill paths are logged. On error nothing is left open.
func New(o Options) (*Session, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ws, err := workspace.NewSet(o.Roots)
	if err != nil {
		return nil, err
	}
	s := &Session{Workspace: ws, log: log, Registry: toolbridge.NewRegistry(log), fileIndex: o.FileIndex}
	s.Terminals = terminal.NewTable(o.Terminal)
	s.Gate = execboundary.NewGate(execboundary.Options{
		Approver: NewApprover(o.Prompter),
		Audit:    execboundary.NewAuditLog(""),
		Log:      log,
	})
	if missing := s.Apply(o.Settings); len(missing) > 0 {
		log.Warn("approved or skill paths do not exist", "paths", strings.Join(missing, ", "))
	}
	if o.FileIndex {
		catalog.WarmCacheWatch(o.Settings)
	}
	s.Journal, s.journalErr = openJournal(ws, o.Settings, log)
	reads := &catalog.ReadLedger{}
	s.Commits = catalog.NewCommitter(catalog.CommitOptions{Workspace: ws, Editor: o.Editor, Reads: reads, Settings: s.Settings, Journal: s.Journal, JournalErr: s.journalErr, Notifier: o.Notifier, Prompter: o.Prompter, Language: o.Language, Log: log})
	env := catalog.Env{
		Workspace: ws, Editor: o.Editor, Prompter: o.Prompter, Notifier: o.Notifier, Reads: reads,
		Terminals: s.Terminals, Gate: s.Gate, Settings: s.Settings, Registry: s.Registry,
		Journal: s.Journal, Commits: s.Commits, Language: o.Language, OnClose: s.onClose, Log: log,
		FileIndexes: s.indexOf,
	}
	tools := catalog.All(env)
	if o.ExtraTools != nil {
		tools = append(tools, o.ExtraTools(env)...)
	}
	if err := s.Registry.Register(tools...); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// FileIndexes returns the file index of each workspace folder, in the
// order of the roots; none unless Options.FileIndex is set and search.index
// is on.
func (s *Session) FileIndexes() []*search.Index {
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	var out []*search.Index
	for _, r := range s.Workspace.Roots() {
		if x := s.indexes[r]; x != nil {
			out = append(out, x)
		}
	}
	return out
}

// FileIndexStatus returns the status of each workspace folder's file index,
// in the order of the roots: the index's own, or, while search.index is off,
// one that says so. Empty unless Options.FileIndex is set.
func (s *Session) FileIndexStatus() []search.IndexStatus {
	if !s.fileIndex {
		return nil
	}
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	var out []search.IndexStatus
	for _, r := range s.Workspace.Roots() {
		if r.Kind != workspace.KindWorkspace {
			continue
		}
		switch x := s.indexes[r]; {
		case x != nil:
			out = append(out, x.Status())
		case s.indexesClosed:
			out = append(out, search.IndexStatus{Folder: r.Path, State: search.IndexClosed})
		default:
			out = append(out, search.IndexStatus{Folder: r.Path, State: search.IndexWalking, Reason: "the setting search.index is false"})
		}
	}
	return out
}

func (s *Session) indexOf(r *workspace.Root) *search.Index {
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	return s.indexes[r]
}

// setFileIndexes starts the workspace folders' file indexes when on (and
// Options.FileIndex is set) and they are not running, or closes them when
// off; searches of a folder without one walk it.
func (s *Session) setFileIndexes(on bool) {
	s.indexMu.Lock()
	if on && s.fileIndex && !s.indexesClosed && s.indexes == nil {
		s.indexes = map[*workspace.Root]*search.Index{}
		for _, r := range s.Workspace.Roots() {
			if r.Kind == workspace.KindWorkspace {
				s.indexes[r] = search.NewIndex(r.FS, r.Path, search.IndexOptions{Log: s.log})
			}
		}
	}
	var stop map[*workspace.Root]*search.Index
	if !on && s.indexes != nil {
		s.log.Info("file indexes closed: search.index is false; searches walk the folders")
		stop = s.takeIndexesLocked()
	}
	s.indexMu.Unlock()
	// Close waits for an index's goroutines: outside the lock, so that
	// searches meanwhile find no index and walk.
	closeIndexes(stop)
}

// takeIndexesLocked empties the map of indexes and returns what it held.
func (s *Session) takeIndexesLocked() map[*workspace.Root]*search.Index {
	m := s.indexes
	s.indexes = nil
	return m
}

// closeIndexes closes each index of m.
func closeIndexes(m map[*workspace.Root]*search.Index) {
	for _, x := range m {
		x.Close()
	}
}

// Settings returns the current settings.
func (s *Session) Settings() settings.Settings {
	if cfg := s.settings.Load(); cfg != nil {
		return *cfg
	}
	return settings.Settings{}
}

// Apply replaces the settings: the shell tasks', the exec boundary's, the
// read-only folders they name and search.index take effect at once,
// mcp.servers in the next session. It returns the approved or skill paths
// that do not exist.
func (s *Session) Apply(cfg settings.Settings) (missing []string) {
	s.settings.Store(&cfg)
	s.Terminals.SetSettings(cfg.TerminalSettings())
	if err := s.Gate.Configure(cfg.ExecBoundary.Mode, cfg.ExecBoundary.Rules, cfg.ExecBoundary.ApprovalTimeoutMs); err != nil {
		s.log.Warn("execBoundary settings not fully applied", "err", err)
	}
	s.setFileIndexes(cfg.SearchIndex())
	return s.Workspace.SetReadOnly(cfg.Read.ApprovedPaths, catalog.SkillFolders(cfg))
}

// onClose registers fn to run when the session closes; the MCP servers
// the catalog started stop this way.
func (s *Session) onClose(fn func()) {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	s.closers = append(s.closers, fn)
}

// Close ends the session once: the MCP servers the catalog started stop,
// every task tree dies, the workspace closes. A second Close does nothing.
func (s *Session) Close() {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return
	}
	s.closed = true
	fns := s.closers
	s.closers = nil
	s.closeMu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
	s.indexMu.Lock()
	s.indexesClosed = true
	indexes := s.takeIndexesLocked()
	s.indexMu.Unlock()
	closeIndexes(indexes)
	s.Terminals.Close()
	if s.Journal != nil {
		s.Journal.Close()
	}
	s.Workspace.Close()
}

// openJournal opens the workspace's journal of changes under its state
// folder, or says (and logs) why it cannot.
func openJournal(ws *workspace.Set, cfg settings.Settings, log *slog.Logger) (*changes.Journal, error) {
	var reals []string
	for _, r := range ws.Roots() {
		if r.Kind == workspace.KindWorkspace {
			reals = append(reals, r.Real)
		}
	}
	dir, err := workspace.StateDir(reals)
	if err != nil {
		log.Warn("no journal of changes: changes cannot be listed or reverted", "err", err)
		return nil, err
	}
	maxBytes := int64(cfg.Changes.MaxBytes)
	if maxBytes <= 0 {
		maxBytes = settings.DefaultChangesMaxBytes
	}
	root := ""
	if len(reals) == 1 {
		root = reals[0]
	}
	// Sync: an entry and the contents it records are on disk before the
	// change it records is made, so a crash of the machine cannot leave a
	// change the journal does not know.
	j, err := changes.Open(filepath.Join(dir, "changes"), changes.Options{MaxBytes: max(maxBytes, 1<<20), Root: root, Log: log, Sync: true})
	if err != nil {
		log.Warn("no journal of changes: changes cannot be listed or reverted", "dir", dir, "err", err)
		return nil, err
	}
	return j, nil
}

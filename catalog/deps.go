package catalog

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// Deps is everything the catalog's tools need from the process around them.
// The language server and the command line each build one.
type Deps struct {
	Workspace *workspace.Set
	// Editor is nil when no editor is attached.
	Editor toolbridge.Editor
	// Prompter asks the user; nil when no editor is attached.
	Prompter toolbridge.Prompter
	// Notifier sends whale/* notifications to the editor; nil without one.
	Notifier toolbridge.Notifier
	Reads    *ReadLedger
	Log      *slog.Logger
	// Terminals runs the shell tools' tasks; nil turns the shell tools off.
	Terminals *terminal.Table
	// ExecGate checks every program shell tasks execute; nil runs them
	// without the exec boundary.
	ExecGate *execboundary.Gate

	settings atomic.Pointer[settings.Settings]

	locksOnce sync.Once
	locks     *edits.Locks
	// beforeCommit, when set by a test, runs under the commit locks between
	// planning a change and staging it.
	beforeCommit func()

	closeMu sync.Mutex
	closers []func()
	closed  bool
}

// OnClose registers fn to run when the session ends (Close); MCP servers
// the catalog started are stopped this way.
func (d *Deps) OnClose(fn func()) {
	d.closeMu.Lock()
	defer d.closeMu.Unlock()
	d.closers = append(d.closers, fn)
}

// Close runs the OnClose functions, the last registered first, once; a
// second Close does nothing. Front ends call it when the session ends.
func (d *Deps) Close() {
	d.closeMu.Lock()
	if d.closed {
		d.closeMu.Unlock()
		return
	}
	d.closed = true
	fns := d.closers
	d.closers = nil
	d.closeMu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// Settings returns the current settings.
func (d *Deps) Settings() settings.Settings {
	if s := d.settings.Load(); s != nil {
		return *s
	}
	return settings.Settings{}
}

// SetSettings replaces the settings and the read-only roots they name. It
// returns the approved or skill paths that do not exist.
func (d *Deps) SetSettings(s settings.Settings) (missing []string) {
	d.settings.Store(&s)
	if d.Terminals != nil {
		d.Terminals.SetSettings(s.TerminalSettings())
	}
	if d.ExecGate != nil {
		if err := d.ExecGate.Configure(s.ExecBoundary.Mode, s.ExecBoundary.Rules, s.ExecBoundary.ApprovalTimeoutMs); err != nil {
			d.logger().Warn("execBoundary settings not fully applied", "err", err)
		}
	}
	if d.Workspace == nil {
		return nil
	}
	return d.Workspace.SetReadOnly(s.Read.ApprovedPaths, skillFolders(d.Workspace, s))
}

// Resolve maps a model's path to a Target, turning path-guard refusals into
// Failures with the matching code.
func (d *Deps) Resolve(path string, access workspace.Access) (workspace.Target, error) {
	t, err := d.Workspace.Resolve(path, access)
	if err != nil {
		var pe *workspace.PathError
		if errors.As(err, &pe) {
			return t, &toolbridge.Failure{Code: pe.Code, Text: pe.Msg}
		}
		return t, err
	}
	return t, nil
}

// logger returns d.Log or a logger that discards.
func (d *Deps) logger() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.New(slog.DiscardHandler)
}

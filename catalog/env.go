package catalog

import (
	"errors"
	"log/slog"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/todos"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// Env is what a session offers the catalog. All hands each tool only the
// parts of it that tool uses; a nil field turns off what needs it (the
// shell tools without Terminals, questions without a Prompter).
type Env struct {
	Workspace *workspace.Set
	// Editor is nil when no editor is attached.
	Editor toolbridge.Editor
	// Prompter asks the user; nil when no one can be asked.
	Prompter toolbridge.Prompter
	// Notifier shows the plan and the todos in the editor; nil without one.
	Notifier toolbridge.Notifier
	// Reads is the session's ledger of what the model read and wrote; All
	// makes one when it is nil.
	Reads *ReadLedger
	// Terminals runs the shell tools' tasks; nil turns the shell tools off.
	Terminals *terminal.Table
	// Gate checks every program shell tasks execute; nil runs them without
	// the exec boundary.
	Gate *execboundary.Gate
	// Settings returns the current settings; nil means the defaults.
	Settings func() settings.Settings
	// Journal records what each call changed (changes_list and
	// changes_revert read it); nil: nothing is journaled.
	Journal *changes.Journal
	// Commits is the session's commit path; All makes one from the fields
	// above when it is nil.
	Commits *Committer
	// Language is the editor's diagnostics and language servers; nil: the
	// language tools are not listed.
	Language toolbridge.Language
	// Registry is where tool_search adds the MCP tools it activates.
	Registry *toolbridge.Registry
	// OnClose registers what must stop when the session ends (the MCP
	// servers the catalog started); nil when nothing may be started.
	OnClose func(stop func())
	Log     *slog.Logger
	// FileIndexes finds each workspace root's live file index, which grep
	// and search_files answer from; nil: they walk the folders.
	FileIndexes FileIndexes
}

// All builds every built-in tool, in the order clients list them: files,
// search, web, questions, edits, shell, plan, todos, then the tools of the
// configured MCP servers.
func All(env Env) []toolbridge.Tool {
	env = env.withDefaults()
	commits := env.Commits
	if commits == nil {
		commits = NewCommitter(CommitOptions{Workspace: env.Workspace, Editor: env.Editor, Reads: env.Reads, Settings: env.Settings, Journal: env.Journal, Notifier: env.Notifier, Prompter: env.Prompter, Language: env.Language, Log: env.Log})
	}
	shell := Shell{Terminals: env.Terminals, Workspace: env.Workspace, Gate: env.Gate, Settings: env.Settings, Journal: env.Journal, Notifier: env.Notifier, SandboxState: &SandboxState{}}
	store := todos.NewStore(realRoots(env.Workspace), env.Log)
	tools := []toolbridge.Tool{
		ReadFile(env.Workspace, env.Editor, env.Reads),
		ListDir(env.Workspace),
		LoadSkill(env.Workspace, env.Settings),
		Grep(env.Workspace, env.Editor, env.FileIndexes),
		SearchFiles(env.Workspace, env.Editor, env.FileIndexes),
		WebSearch(env.Settings),
		Fetch(env.Settings),
		WebFetch(env.Settings),
		RequestUserInput(env.Prompter),
		Edit(commits),
		MultiEdit(commits),
		Write(commits),
		ApplyPatch(commits),
		ChangesList(env.Journal),
		ChangesRevert(commits),
		ShellRun(shell),
		ShellWait(env.Terminals),
		WriteStdin(env.Terminals),
		ShellCancel(env.Terminals),
		UpdatePlan(env.Notifier),
		TodoAdd(store, env.Notifier),
		TodoList(store, env.Notifier),
		TodoUpdate(store, env.Notifier),
		TodoRemove(store, env.Notifier),
	}
	if env.Language != nil {
		l := Lang{Workspace: env.Workspace, Editor: env.Editor, Language: env.Language}
		tools = append(tools, Problems(l), Symbols(l), DocumentSymbols(l), Definition(l), References(l), Hover(l), Rename(l, commits))
	}
	return append(tools, MCPTools(MCPOptions{Workspace: env.Workspace, Settings: env.Settings, Registry: env.Registry, OnClose: env.OnClose, Log: env.Log})...)
}

// withDefaults fills the fields All needs that the caller left nil.
func (env Env) withDefaults() Env {
	if env.Reads == nil {
		env.Reads = &ReadLedger{}
	}
	if env.Settings == nil {
		env.Settings = func() settings.Settings { return settings.Settings{} }
	}
	if env.Log == nil {
		env.Log = slog.New(slog.DiscardHandler)
	}
	return env
}

// realRoots lists the real paths of the workspace's roots.
func realRoots(ws *workspace.Set) []string {
	if ws == nil {
		return nil
	}
	var reals []string
	for _, r := range ws.Roots() {
		reals = append(reals, r.Real)
	}
	return reals
}

// resolve maps a model's path to a Target, turning path-guard refusals into
// Failures with the matching code.
func resolve(ws *workspace.Set, path string, access workspace.Access) (workspace.Target, error) {
	t, err := ws.Resolve(path, access)
	if err != nil {
		var pe *workspace.PathError
		if errors.As(err, &pe) {
			return t, &toolbridge.Failure{Code: pe.Code, Text: pe.Msg}
		}
		return t, err
	}
	return t, nil
}

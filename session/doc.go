// Package session is one client's whale-ls, built the same way for every
// front end — the language server, `whale-ls call` and `whale-ls mcp`: New
// opens the workspace, the shell task table and the exec boundary, applies
// the settings and registers the catalog; Apply changes the settings; Close
// stops everything the session started (MCP servers, every task tree) and
// closes the workspace.
//
// A session knows no wire: the front end gives it the Editor, Prompter and
// Notifier it has, dispatches calls through Registry, and decides when the
// session ends.
package session

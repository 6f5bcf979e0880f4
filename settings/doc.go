// Package settings is the settings table of whale-ls: every key a client
// may send as initializationOptions or workspace/didChangeConfiguration,
// with its JSON schema, default and description (Table), and the parser
// that reads them into Settings (Parse).
//
// The table is the one source: `whale-ls settings --json`, the VS Code
// extension's setting contributions and the README's settings list are
// generated from or checked against it. Parse never fails a whole session
// over one bad key; it reports unknown keys instead of guessing.
package settings

// Package toolbridge is the tool contract of whale-ls: what a tool is (Tool,
// Spec, Schema), the Registry that freezes the specs and dispatches calls,
// the schema-guided input repair and validation, the Envelope every front
// end returns, the one list of result codes (Codes), and the interfaces a
// tool reaches the user through (Editor, Prompter, Notifier). The tools
// themselves live in package catalog.
//
// Guarantees: a tool's spec never changes after registration; a tool only
// ever sees input that matches its schema; a failing or panicking tool
// yields an Envelope with ok=false and a stable code, never a Go panic or a
// JSON-RPC error. The package knows nothing of LSP or MCP: the front ends
// implement Editor, Prompter and Notifier and pick the wire names. It
// imports nothing of whale: its Pos and TextEdit have the shape of the
// edits engine's own (catalog converts), and it quotes model input by
// package excerpt's rule without importing it.
package toolbridge

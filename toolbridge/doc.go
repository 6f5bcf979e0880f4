// Package toolbridge is the tool contract of whale-ls: the catalog of tools,
// the registry that freezes their specs, and Dispatch, which repairs and
// validates a call's input, runs the tool and wraps whatever happened into
// the one Envelope every front end returns.
//
// Guarantees: a tool's spec never changes after registration; a tool only
// ever sees input that matches its schema; a failing or panicking tool
// yields an Envelope with ok=false and a stable code, never a Go panic or a
// JSON-RPC error. The package knows nothing of LSP: the editor, when there
// is one, is reached through the Editor interface.
package toolbridge

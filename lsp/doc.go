// Package lsp is the whale-ls language server: it speaks LSP over a byte
// stream, keeps the overlay of documents open in the editor, exposes every
// tool of the catalog as a workspace/executeCommand command, and is where the
// editor-facing adapters (applying edits, terminals, prompts) meet the wire.
//
// Guarantees: notifications are handled one at a time in arrival order, so
// the overlay always reflects the editor's sequence of changes; requests run
// concurrently, so a long tool call never holds back a didChange. A
// malformed, oversized or invalid message is answered with a JSON-RPC error
// or logged, and the server keeps running; a panic in a request handler
// becomes an error response, never a crash.
//
// Every message has a type: protocol.go declares each whale/* method and
// its payload (attach's own methods are in attach/protocol.go, checked
// beside them by protocol_test.go); client.go the standard messages the
// server sends the client, with one work-done progress helper.
package lsp

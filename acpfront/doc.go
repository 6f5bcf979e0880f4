// Package acpfront is whale's Agent Client Protocol (ACP) proxy: an ACP
// agent to the editor and an ACP client to the real agent, which runs as a
// child process in its own process group.
//
// Messages are newline-delimited JSON-RPC 2.0 on both sides. The proxy owns
// the client methods that act on the machine — fs/read_text_file and
// fs/write_text_file (served through the session's commit path: path
// guards, journal, review, stale-write merge) and terminal/* (served with
// the session's shell tasks: exec boundary, sandbox, output limits) — and
// the capabilities and MCP servers it adds to initialize, session/new and
// session/load. Everything else passes through unchanged and in the order
// it arrived, in both directions. Request ids are kept; an agent request
// whose id is in use on the editor side by a request of the proxy's own
// (session/request_permission for an exec the boundary asks about) travels
// under another id and its response is given its own id back.
//
// With a whale language server attached (Options.Attach), files go through
// that server's commit path instead, so reads see the editor's buffers.
// With Options.EditorFiles and an editor that advertises fs/* in its
// initialize, reads and writes go on to the editor after whale's path
// guards and stale-write check, journaled (forward.go says what is and is
// not kept in that mode).
//
// Guarantees: the agent's process group is stopped on every exit path
// (the editor's input ends, the context ends, the agent exits); requests
// the editor sent and the agent never answered get an error when the agent
// is gone. Not guaranteed: a program the agent starts in a session of its
// own outside whale's terminals is not tracked.
package acpfront

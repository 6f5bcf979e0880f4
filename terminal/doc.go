// Package terminal runs shell commands as tasks over pipes or pseudo-terminals
// and keeps them observable, answerable and stoppable.
//
// A Table starts tasks (t1, t2, …) with the configured shell (`SHELL -c
// COMMAND`). Each task is either a pipe task (stdout and stderr merged in
// order into one pipe, input through another pipe) or a PTY task (a real
// terminal from github.com/creack/pty), chosen from the command's text
// (Classify) unless a mode is forced. Output goes two ways: the raw bytes to
// the editor through a Sink, coalesced, never split inside a UTF-8 character,
// and never blocking the task; and model text (escape sequences stripped,
// carriage-return redraws collapsed, head and tail kept when long) into a
// bounded per-task buffer that the model reads incrementally.
//
// Guarantees:
//   - A task is finished when its process exits (Wait), not when its output
//     ends; output written before the exit is read first (EIO on the PTY
//     master is the end of output).
//   - Every task is its own session and process group. Cancel and Close
//     signal the whole tree: every process group of the session, and
//     descendants that left it while their parent was alive. Close and the
//     release of an exited task kill what is left.
//   - Memory per task is bounded: the model buffer by Settings.OutputLimitBytes
//     (oldest output dropped, with a marker), the editor backlog by about
//     1 MiB (skipped bytes replaced by a marker).
//   - At most Options.MaxLive tasks run at once.
//
// Not guaranteed:
//   - Zombies re-parented to the server are reaped only if the server called
//     BecomeSubreaper; a process that left its session after its parent died,
//     or that was re-parented before the Table saw it, is out of reach.
//   - If the server is killed without Close, the whole tree dies only when
//     Options.Supervisor runs each task under Supervise; otherwise only the
//     shells die (parent-death signal) and their children may survive.
//   - Classification and prompt detection from text are heuristics; prompt
//     detection from /proc and termios needs Linux.
//   - IsReadOnlyCommand is a conservative hint, not a sandbox.
//
// The package knows nothing about LSP: editors are reached through Sink, and
// the exec boundary through Gate.
package terminal

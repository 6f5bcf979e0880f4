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
//   - A task is finished when its shell exits (Wait), not when its output
//     ends; output written before the exit is read first (EIO on the PTY
//     master is the end of output).
//   - Every task is its own session and process group. Cancel and Close
//     signal the whole tree: every process group of the session, and every
//     process that descends from the task's first process by the PPid links
//     in /proc, whatever session or group it moved to. Close kills what is
//     left.
//   - Processes that outlive the shell (jobs left with `&`, `nohup` and
//     `setsid` daemons, double forks) stay with their task: Status lists
//     them as Survivors, Cancel ends them, and the task is not released
//     while they run. With Options.Supervisor (Linux) they are found this
//     way: the supervisor is a child subreaper, so they stay its
//     descendants; it reports the shell's exit on a pipe as soon as the
//     shell is reaped (that is the task's completion) and stays until the
//     last of them is gone; the Table finds them by scanning /proc for the
//     supervisor's descendants whenever it is asked. When the server dies,
//     even by SIGKILL, the supervisor kills them all (see Supervise).
//   - On macOS, which has neither subreapers nor a parent-death signal, the
//     tree is what can be found without them: the members of the task's
//     session (jobs, `nohup` and double-forked processes stay in it even
//     when re-parented to launchd) and their descendants by parent links
//     while the parent lives (sysctl kern.proc.all, getsid). Cancel and
//     Close signal those processes and their process groups; the
//     supervisor (Options.Supervisor) reports the shell's exit, stays while
//     any of them lives, and kills them all when the server dies, even by
//     SIGKILL: it watches the server's pid with kqueue (NOTE_EXIT). A
//     process that both left the session and lost its parent is out of
//     reach there.
//   - Memory per task is bounded: the model buffer by Settings.OutputLimitBytes
//     (oldest output dropped, with a marker), the editor backlog by about
//     1 MiB (skipped bytes replaced by a marker).
//   - At most Options.MaxLive tasks run at once.
//
// Not guaranteed:
//   - Without a supervisor, zombies re-parented to the server are reaped
//     only if the server called BecomeSubreaper, and a process that left
//     the task's session and was then re-parented is out of reach (it is
//     neither a session member nor a descendant any more); the same holds
//     when something other than the Table kills a supervisor.
//   - If the server is killed without Close, the whole tree dies only when
//     Options.Supervisor runs each task under Supervise (Linux, macOS);
//     otherwise on Linux only the shells die (parent-death signal) and
//     their children may survive, and on macOS all of them survive.
//   - The macOS code (proc_darwin.go, supervise_darwin.go) is compiled and
//     vetted for darwin/amd64 and darwin/arm64 in CI, tests included
//     (supervise_darwin_test.go: a killed server leaves no process, Cancel
//     ends survivors, process listing), but those tests run only on a Mac,
//     and CI has none: on macOS that behaviour is checked by reading, not
//     by running. Prompt detection there has no syscall view (no /proc).
//   - Commands longer than the kernel passes as one argument are refused
//     before anything starts only where the limit is known (Linux); other
//     systems report E2BIG from the start, when they do.
//   - Classification and prompt detection from text are heuristics: a
//     command is long-running (a dev server, a watcher) only when a row of
//     the longRunningRules table says so, and interactive only by the lists
//     beside it; prompt detection from /proc and termios needs Linux.
//   - IsReadOnlyCommand is a conservative hint, not a sandbox.
//
// A task's code is split by job: task.go holds the Task, the Gate it is
// started through and its accessors; task_start.go starts it, task_io.go
// runs its output and exit loops, task_output.go is the model's cursor into
// its output, task_input.go its input and holds, task_cancel.go cancels,
// kills and releases it. What the layers above learn about a task while it
// lives (the exec gate's events, the journal's note) is kept in the task
// itself (Task.Annotation), and the command line is parsed once by whoever
// starts the task (StartOptions.Parsed, shellcmd.Line).
//
// The package knows nothing about LSP: editors are reached through Sink, and
// the exec boundary through Gate.
package terminal

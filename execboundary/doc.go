// Package execboundary decides, for every program a shell task executes,
// whether it may run: allow, ask the user, or deny. It holds the policy
// (rules, the shipped defaults, "strictest rule wins", matching by path,
// name, file identity and content hash), the per-task decision cache, the
// "allow for this session" memory, the audit log, and the gate that makes
// every execve/execveat of a task's process tree wait for a decision.
//
// On Linux the gate is a seccomp user-notification filter. The server runs
// this executable again as a small helper ("exec-gate", see RunHelper) in
// front of the task's shell; the helper sets no_new_privs, installs a filter
// that turns execve and execveat (of every syscall ABI the process can reach)
// into notifications, hands the listener to the server over an inherited
// socket pair and then executes the shell. The filter is inherited by every
// descendant and cannot be removed, so $(…), pipes, sh -c, env, xargs,
// find -exec, make recipes, interpreters and background jobs all stop at
// the gate before the new program runs. A task that is also confined (a
// ConfinedTask, the sandbox package's policy) has the helper apply that
// confinement first, through the Confiner its program passes to RunHelper;
// with mode off the helper still runs, for the confinement alone.
//
// What it guarantees: no program image is loaded in a gated task without a
// decision, except paths the kernel is going to refuse anyway (they are let
// through undecided). A denied exec fails with EPERM and leaves a line in the
// task's output. A script's #! interpreter, the dynamic loader run directly
// and multi-call binaries are judged as the programs they run. Programs
// without an identity (memfd, deleted files) are asked about. After an
// allowed exec the new image is checked against the decided program; a
// mismatch kills the task. A decision is reused within the task only for
// the same program file, arguments and folder, and only while the
// interpreter or loaded program it rested on is unchanged. Identical execs
// of a task that need the user's answer at the same time share one prompt
// and each gets an audit line; a prompt that no exec waits for any more
// (their processes or the whole task ended) is withdrawn, and the approval
// timeout ends it as it ends a single one.
//
// What it does not guarantee: it is an approval layer, not a sandbox. An
// allowed interpreter (python3, perl, node, a shell) can do anything its user
// can without executing another program: delete files, open sockets, write
// to other processes' memory. Rules match programs, not intentions: a copy
// of a denied program is caught by its content hash, but a rebuilt or
// patched copy is not. The image check after an allowed exec stops the task
// before the new program runs when the process could race the kernel's
// second read of its arguments (several threads, shared address space, a
// tracer); otherwise it runs just after the exec and can only kill what
// already started. Where the gate cannot be installed (not Linux, no
// seccomp user notification, a listener already present in the process tree)
// Mode decides whether commands are refused or run unchecked on Linux. On
// other systems (macOS, Windows) the gate is a pre-start check instead:
// ParseCommandLine lists the programs the command line names, each is judged
// by the same policy (asking where a rule says ask), a denial refuses the
// command, and every result says that programs started later (by scripts,
// interpreters, Makefiles) and names computed at run time are not checked.
package execboundary

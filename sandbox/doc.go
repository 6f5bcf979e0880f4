// Package sandbox confines a shell task's processes: where they may write
// (Landlock) and what they may reach over the network (a network namespace).
// It is applied by the exec gate's helper, after the server started it and
// before the shell runs, so every process of the task inherits it and none
// can leave it: background jobs, `find -exec`, `xargs`, interpreters and
// daemons alike.
//
// Modes (shell.sandbox):
//   - workspace-write: writes are allowed in the workspace folders (their
//     .git folders included, so commits work), the temp folders (/tmp,
//     /var/tmp, /dev/shm, $TMPDIR), the per-user caches of the toolchains
//     found on PATH (Go build and module caches, npm, yarn, pnpm, pip,
//     cargo, ~/.cache) and shell.writableRoots. Reading is not restricted.
//   - read-only: writes are allowed in the temp folders and
//     shell.writableRoots only.
//   - off: nothing is confined.
//
// In both confined modes the task runs in a mount namespace of its own
// (root's, or inside a user namespace where one can be made) in which every
// mount is read-only but the writable folders, so that what Landlock has no
// right for — modes, owners, times, extended attributes, inode flags —
// cannot change outside them either; there the workspace's .git/hooks and
// .git/config are read-only too, unless shell.gitWritable, and so are the
// modules already in the Go module cache (Policy.ModuleCaches).
//
// In both confined modes the terminal devices, /dev/null and the like stay
// writable, no device node can be made anywhere (a block device made in the
// workspace would write wherever its disk is), and a process may neither
// signal processes outside its task nor connect to an abstract Unix socket
// one of them listens on (Landlock scoping, ABI 6 and later). A
// task that runs as root keeps only Docker's default capabilities less
// CAP_MKNOD, CAP_SETFCAP and CAP_SETPCAP: without CAP_SYS_ADMIN it cannot
// push input into another terminal (TIOCSTI) or mount, without
// CAP_LINUX_IMMUTABLE it cannot chattr +i.
//
// Network (shell.network): on leaves the network alone. off starts the task
// in a new network namespace whose loopback interface is down: no TCP, UDP
// or raw socket reaches any address, loopback included. loopback starts it
// in a new network namespace with only the loopback interface up: the task
// reaches servers it started itself on 127.0.0.1 and ::1, but not the
// host's loopback services nor any other address. Both need the
// permission to create namespaces (root, or unprivileged user namespaces).
//
// What it guarantees: with Landlock ABI 3 or later (Linux 6.2), no process
// of a confined task creates, writes, truncates, renames, links or removes a
// file outside the allowed folders, whatever path it uses (`..`, symlinks,
// /proc/self/root, hard links it makes, renames out of the workspace are all
// refused), and none can undo the confinement.
//
// What it does not guarantee:
//   - A hard link that already existed inside the workspace, pointing to a
//     file outside, is written through like any workspace file (Landlock
//     judges the path used, and both paths name one file).
//   - Unix sockets named by a path still connect to their servers outside
//     the sandbox, which then act with their own rights (a Docker daemon, a
//     user's D-Bus session bus and systemd --user, an ssh-agent, the editor's
//     sockets). Abstract Unix sockets outside the task are out of reach
//     with Landlock ABI 6 and later, and, on older kernels, when the network
//     is off or loopback (they belong to the network namespace).
//   - Reading is not restricted: a task can read anything its user can.
//   - Where Landlock is missing (Linux before 6.2, Landlock not enabled,
//     other systems) or namespaces cannot be made, nothing is confined; the
//     caller decides, by execBoundary.mode, whether the task then runs.
package sandbox

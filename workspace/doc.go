// Package workspace knows which folders the assistant may touch and turns the
// paths a model writes into safe targets inside them.
//
// Every workspace folder (and every extra folder that may be read) is a Root
// backed by Go's os.Root, so a file operation done through Root.FS can never
// leave the folder, not through "..", not through a symlink, and not through
// a symlink swapped in between the check and the use. Resolve adds clear,
// early answers on top of that guarantee: writes must land inside a workspace
// root (else path_escapes_workspace); reads may also land under approved read
// paths, discovered skill folders, or the main checkout of a linked git
// worktree (else path_not_allowed).
//
// The package does not decide whether the user approves an action; it only
// says whether a path is in reach at all.
package workspace

// Package todos keeps a workspace's todo list on disk, under the user's
// state folder ($XDG_STATE_HOME/whale-ls/<workspace>/todos.json), so that
// the list outlives the session and several whale-ls processes of the same
// workspace share it.
//
// Guarantees: every operation re-reads the file under an exclusive lock; a
// change is written atomically (a reader sees the old list or the new one);
// a corrupted file is moved aside, never overwritten. It does not merge
// concurrent edits of one item: the last Update wins.
package todos

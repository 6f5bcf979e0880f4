// Package catalog holds every built-in tool of whale-ls, one file per tool:
// <tool>.go builds it, <tool>.md is the description the model reads (and
// <tool>.long.md the long help for people), <tool>_test.go tests it. All
// assembles them in the order clients list them.
//
// A tool's constructor takes only what that tool needs. Tools reach the
// editor through toolbridge's Editor, Prompter and Notifier interfaces and
// never name a wire method. Every change to a file goes through the one
// commit path (commit.go): lock, load, plan, verify, commit, through the
// editor for an open document and edits.Txn for a file on disk.
package catalog

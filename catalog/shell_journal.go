package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/workspace"
)

// A shell task is journaled like a tool's change: shell_run takes a
// checkpoint of every workspace folder before the task starts, and once
// the task has exited, what it created, changed or deleted there (files
// the ignore files do not ignore) becomes one journal entry, which
// changes_revert takes back like any other. Read-only commands take none.

// journalWaitAfterExit bounds how long a result waits, after the task
// exited, for its changes to be journaled before it says they are pending.
const journalWaitAfterExit = 3 * time.Second

// taskJournal is what the journal made of one task.
type taskJournal struct {
	done chan struct{} // closed when note is set
	note string        // the line the task's results carry
}

// taskJournalKey is the key of a task's taskJournal among its annotations.
type taskJournalKey struct{}

// taskCheckpoint is what a task's changes are measured against.
type taskCheckpoint struct {
	snaps []*changes.Snapshot
	note  string // the folders no snapshot could be taken of, or ""
	// git stamps the workspaces' .git folders, in roots; the journal does
	// not keep .git, so it is compared apart (see gitSurface).
	git   map[string]fileStamp
	roots []string
	// caches watches the toolchains' caches a confined task may write
	// (nil: none, or not confined).
	caches *sandbox.CacheMark
}

// checkpoint snapshots the workspace folders before a task; empty when
// there is no journal. A folder that cannot be snapshot is left out and
// named in the note.
func (sh Shell) checkpoint(ctx context.Context) taskCheckpoint {
	if sh.Journal == nil || sh.Workspace == nil {
		return taskCheckpoint{}
	}
	var cp taskCheckpoint
	var failed []string
	for _, r := range sh.Workspace.Roots() {
		if r.Kind != workspace.KindWorkspace {
			continue
		}
		cp.roots = append(cp.roots, r.Real)
		s, err := sh.Journal.Snapshot(ctx, r.FS, r.Real, workspace.NewIgnorer(r.FS))
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", r.Path, err))
			continue
		}
		cp.snaps = append(cp.snaps, s)
	}
	if len(failed) > 0 {
		cp.note = "[what the task changes in " + strings.Join(failed, ", ") + " is not journaled: no checkpoint could be taken]"
	}
	cp.git = gitSurface(cp.roots)
	return cp
}

// journalTask records, once task has exited, what it changed since cp, as
// an entry of shell_run with callID.
func (sh Shell) journalTask(task *terminal.Task, cp taskCheckpoint, callID string) {
	if len(cp.snaps) == 0 && cp.note == "" && cp.git == nil && cp.caches == nil {
		return
	}
	tj := &taskJournal{done: make(chan struct{})}
	task.Annotation(taskJournalKey{}, func() any { return tj })
	go func() {
		<-task.Done()
		tj.note = sh.recordTask(cp, callID, task.Command())
		close(tj.done)
	}()
}

// recordTask journals the changes since cp, as an entry that names the
// task's command, and returns the note for the task's results.
func (sh Shell) recordTask(cp taskCheckpoint, callID, command string) string {
	snaps, failedNote := cp.snaps, cp.note
	ctx := context.Background()
	var files []changes.FileChange
	var skipped []string
	for _, s := range snaps {
		fs, sk, err := s.Changes(ctx)
		if err != nil {
			return fmt.Sprintf("[what the task changed could not be journaled (%v); changes_revert cannot take it back]", err)
		}
		files = append(files, fs...)
		for _, k := range sk {
			skipped = append(skipped, k.Path+" ("+k.Reason+")")
		}
	}
	var parts []string
	if len(files) > 0 {
		p, err := sh.Journal.Begin(changes.Meta{Tool: "shell_run", CallID: callID, Command: command}, files)
		if err == nil {
			var e changes.Entry
			if e, err = p.Commit(); err == nil {
				if sh.Notifier != nil {
					sh.Notifier.ChangesJournaled(e.ID)
				}
				parts = append(parts, fmt.Sprintf("[the task changed %d %s in the workspace: journal entry %s; changes_revert takes it back]", len(files), editPlural(len(files), "file", "files"), e.ID))
			}
		}
		if err != nil {
			parts = append(parts, fmt.Sprintf("[the task changed %d %s in the workspace, but the journal could not record them (%v)]", len(files), editPlural(len(files), "file", "files"), err))
		}
	}
	if len(skipped) > 0 {
		parts = append(parts, "[changed but not restorable by a revert: "+strings.Join(skipped, ", ")+"]")
	}
	if cp.git != nil {
		parts = append(parts, gitChanges(cp.git, gitSurface(cp.roots)).notes()...)
	}
	parts = append(parts, cacheNotes(cp.caches.Changes())...)
	if failedNote != "" {
		parts = append(parts, failedNote)
	}
	return strings.Join(parts, "\n")
}

// journalNote is the journal's line for an exited task's result ("" when
// it changed nothing), waiting briefly for the recording to end.
func journalNote(task *terminal.Task) string {
	tj, ok := task.Annotation(taskJournalKey{}, nil).(*taskJournal)
	if !ok || task.Running() {
		return ""
	}
	select {
	case <-tj.done:
		return tj.note
	case <-time.After(journalWaitAfterExit):
		return "[the task's changes are still being journaled; changes_list shows them shortly]"
	}
}

package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/internal/filelock"
	"github.com/whale-ls/whale-ls/internal/userdir"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// The one commit path of the edit tools. Per call: resolve the files it may
// change → take their locks (edits.Locks: this process and every other
// whale process of the user) → read each file's current text (the editor's
// buffer when it is open there, else the disk) → plan → stage the disk
// files → apply the editor's part → verify and rename → unlock. Because the
// locks are held from the read to the rename, parallel edits of one file
// are serialised and each is planned on the text the previous one left;
// an edit is refused only when the text it targets is no longer there.

// commitAttempts bounds how often a call is planned again when a writer
// that is not whale (the user typing, an editor saving) changed one of its
// files between the read and the commit.
const commitAttempts = 3

// loader loads a file a planner may change; it must be one of the paths the
// commit locked.
type loader func(shown string, mayCreate bool) (*editSource, error)

// planner plans a change under the commit locks.
type planner func(load loader) ([]*fileChange, error)

// Committer is the one commit path of a session's edit tools. It is safe
// for concurrent use: calls that touch a file take its lock first.
type Committer struct {
	ws       *workspace.Set
	editor   toolbridge.Editor // nil without an editor
	reads    *ReadLedger
	settings func() settings.Settings
	log      *slog.Logger
	journal  *changes.Journal // nil: changes are not journaled
	// journalErr is why the journal that should be there is not.
	journalErr error
	notifier   toolbridge.Notifier
	prompter   toolbridge.Prompter
	language   toolbridge.Language

	locksOnce sync.Once
	locks     *edits.Locks
	// beforeCommit, set by tests only, runs under the commit locks between
	// planning a change and staging it.
	beforeCommit func()
}

// CommitOptions is what a Committer commits with. Editor and Journal may be
// nil; Reads, Settings and Log default to an empty ledger, the defaults and
// discarding.
type CommitOptions struct {
	Workspace *workspace.Set
	Editor    toolbridge.Editor
	Reads     *ReadLedger
	Settings  func() settings.Settings
	// Journal records every committed change in the same commit: a change
	// that cannot be journaled is not made.
	Journal *changes.Journal
	// JournalErr is why there is no Journal when one should be (it could
	// not be opened): changes are then refused, unless the setting
	// changes.required is false. Nil with a nil Journal: none is kept.
	JournalErr error
	// Notifier, when set, is told of every journaled change.
	Notifier toolbridge.Notifier
	// Prompter shows changes for review when edits.review asks for it.
	Prompter toolbridge.Prompter
	// Language, when set, reports the problems a change introduced.
	Language toolbridge.Language
	Log      *slog.Logger
}

// NewCommitter returns the commit path for o.Workspace.
func NewCommitter(o CommitOptions) *Committer {
	env := Env{Reads: o.Reads, Settings: o.Settings, Log: o.Log}.withDefaults()
	return &Committer{ws: o.Workspace, editor: o.Editor, reads: env.Reads, settings: env.Settings, log: env.Log, journal: o.Journal, journalErr: o.JournalErr, notifier: o.Notifier, prompter: o.Prompter, language: o.Language}
}

// commitLocks returns the locks this session's commits take, shared with
// every whale process of the user through the private runtime folder (or
// this process's alone when there is none).
func (c *Committer) commitLocks() *edits.Locks {
	c.locksOnce.Do(func() {
		dir, err := userdir.Runtime()
		if err != nil {
			c.log.Warn("no private runtime folder: edits are serialised within this process only", "err", err)
			dir = ""
		}
		c.locks = edits.NewLocks(edits.LockOptions{Dir: dir})
	})
	return c.locks
}

// commitPath runs plan under the locks of the files named in shown and
// commits what it planned, all of it or none. It returns the committed
// changes and a note for the result (where the change went, whether it was
// saved).
func (c *Committer) commitPath(ctx context.Context, shown []string, plan planner) ([]*fileChange, string, error) {
	chs, note, _, err := c.commit(ctx, shown, plan, nil)
	return chs, note, err
}

// commit is commitPath for a change that reverts the journal entries
// revertOf (none for a tool's own change), which its journal entry names;
// it also returns that entry's id ("" without a journal).
func (c *Committer) commit(ctx context.Context, shown []string, plan planner, revertOf []string) ([]*fileChange, string, string, error) {
	var keys []string
	for _, s := range shown {
		// A path that does not resolve fails when the planner loads it.
		if t, err := resolve(c.ws, s, workspace.Write); err == nil {
			keys = append(keys, t.Abs)
		}
	}
	var reviewNote string
	if mode := c.reviewMode(); mode != settings.ReviewOff && !toolbridge.CallByUser(ctx) {
		accepted, note, err := c.review(ctx, keys, plan, mode)
		if err != nil {
			return nil, "", "", err
		}
		if accepted != nil {
			plan, reviewNote = accepted, note
		}
	}
	before, checkProblems := c.problemsBefore(ctx, keys)
	for attempt := 1; ; attempt++ {
		tx, err := c.commitLocks().Begin(ctx, keys...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", "", toolbridge.Fail(toolbridge.CodeCanceled, "the edit was canceled while it waited for another edit of the same file; nothing was written")
			}
			if held, ok := errors.AsType[*filelock.HeldError](err); ok {
				return nil, "", "", toolbridge.Fail(toolbridge.CodeWriteConflict, "another process kept whale's edit lock for this file for %v (%s); nothing was written — end that process, or retry when it is done", held.Waited.Round(time.Second), holderText(held))
			}
			return nil, "", "", toolbridge.Fail(toolbridge.CodeInternal, "could not take the edit lock (%v); nothing was written — retry, and report it if it persists", err)
		}
		chs, err := plan(c.loadForEdit)
		var note, entryID string
		if err == nil {
			note, entryID, err = c.commitChanges(ctx, tx, chs, revertOf)
		}
		if err == nil {
			c.rememberWritten(chs...)
		}
		tx.End()
		if err == nil {
			if save := c.saveOpenDocuments(ctx, chs); save != "" {
				note = strings.TrimSpace(save + " " + note)
			}
			if checkProblems {
				note = strings.TrimSpace(note + "\n" + c.problemsAfter(ctx, keys, before))
			}
			return chs, strings.TrimSpace(reviewNote + " " + note), entryID, nil
		}
		var moved *toolbridge.DocumentMovedError
		retry := errors.Is(err, edits.ErrOutsideChange) || errors.As(err, &moved)
		if !retry || attempt == commitAttempts || ctx.Err() != nil {
			if moved != nil {
				err = toolbridge.Fail(toolbridge.CodeWriteConflict, "%s kept changing in the editor while the edit was applied (now version %d; someone is typing in it); nothing was applied — read it again and redo the edit", moved.Path, moved.Actual)
			}
			return nil, "", "", editFailure("", err)
		}
	}
}

// commitChanges commits planned changes under tx's locks: the disk files
// are staged first (so that a conflict there stops the commit before any
// buffer changes), then the editor applies its part, then the disk files
// are verified once more and renamed.
func (c *Committer) commitChanges(ctx context.Context, tx *edits.Txn, chs []*fileChange, revertOf []string) (note, entryID string, err error) {
	if c.beforeCommit != nil {
		c.beforeCommit()
	}
	var docs []toolbridge.DocumentChange
	var docChanges []*fileChange
	var commits []edits.RootCommit
	rootIndex := map[*workspace.Root]int{}
	addDisk := func(s *editSource, p edits.FilePlan) {
		i, ok := rootIndex[s.t.Root]
		if !ok {
			i = len(commits)
			rootIndex[s.t.Root] = i
			commits = append(commits, edits.RootCommit{Root: s.t.Root.FS})
		}
		commits[i].Plans = append(commits[i].Plans, p)
	}
	for _, ch := range chs {
		s := ch.src
		switch {
		case ch.delete || ch.dst != nil:
			if s.doc != nil {
				// An editor holds many documents the user never opened (VS
				// Code loads files for diff views, peeks and extensions,
				// and closes them minutes later): only a buffer with
				// unsaved text would be lost.
				disk, ok := c.cleanOnDisk(s)
				if !ok {
					return "", "", &toolbridge.Failure{Code: toolbridge.CodeWriteConflict,
						Text: fmt.Sprintf("%s has unsaved changes in the editor; deleting or renaming it is refused so that they are not lost — ask the user to save or close it in the editor, then try again (or change its content with edit)", s.shown),
						Data: map[string]any{"unsaved": s.displayPath()}}
				}
				ch.src, s = disk, disk
			}
			addDisk(s, edits.FilePlan{Path: s.t.Rel, Existed: true, Expected: s.raw, Delete: true})
			if ch.dst != nil {
				addDisk(ch.dst, edits.FilePlan{Path: ch.dst.t.Rel, Existed: ch.dst.exists, Expected: ch.dst.raw, New: ch.plan.New})
			}
		case s.doc != nil:
			newText := string(ch.plan.New)
			docs = append(docs, toolbridge.DocumentChange{Path: s.t.Abs, Version: s.doc.Version, Edits: minimalEdits(s.doc.Text, newText), NewText: newText})
			docChanges = append(docChanges, ch)
		default:
			addDisk(s, edits.FilePlan{Path: s.t.Rel, Existed: s.exists, Expected: s.raw, New: ch.plan.New})
		}
	}
	if ctx.Err() != nil {
		return "", "", toolbridge.Fail(toolbridge.CodeCanceled, "the edit was canceled before anything was written; call it again if the change is still wanted")
	}
	if err := tx.Stage(commits); err != nil {
		return "", "", diskFailure(err)
	}
	entry, err := c.journalBegin(ctx, chs, revertOf)
	if err != nil {
		return "", "", err
	}
	if len(docs) > 0 {
		if err := c.editor.ApplyEdits(ctx, docs); err != nil {
			entry.abort()
			return "", "", err
		}
	}
	if err := tx.Commit(); err != nil {
		entry.abort()
		c.revertDocuments(ctx, docChanges)
		return "", "", diskFailure(err)
	}
	note, entryID = entry.commit(c.log)
	if entryID != "" && c.notifier != nil {
		c.notifier.ChangesJournaled(entryID)
	}
	return note, entryID, nil
}

// cleanOnDisk returns the disk file behind an editor document when the
// buffer holds no unsaved text (the same text as the file, line endings
// and encoding aside), as a source that deletes or renames it on disk;
// false when the buffer has unsaved changes or the file is not on disk.
func (c *Committer) cleanOnDisk(s *editSource) (*editSource, bool) {
	raw, exists, err := edits.ReadFile(s.t.Root.FS, s.t.Rel)
	if err != nil || !exists {
		return nil, false
	}
	onDisk, err1 := edits.Decode(raw)
	inEditor, err2 := edits.Decode([]byte(s.doc.Text))
	if err1 != nil || err2 != nil || onDisk.Text != inEditor.Text {
		return nil, false
	}
	disk := *s
	disk.doc, disk.raw, disk.exists = nil, raw, true
	return &disk, true
}

// saveTimeout bounds the editor's save of the documents a change went to
// (format-on-save, a "file changed on disk" dialog): it runs after the
// commit's locks are released, so other edits do not wait for it.
const saveTimeout = 10 * time.Second

// saveOpenDocuments asks the editor to save the documents chs changed in
// its buffers, and returns the note for the result ("" when none).
func (c *Committer) saveOpenDocuments(ctx context.Context, chs []*fileChange) string {
	var docs []*fileChange
	for _, ch := range chs {
		if ch.src.doc != nil && !ch.delete && ch.dst == nil {
			docs = append(docs, ch)
		}
	}
	if len(docs) == 0 {
		return ""
	}
	sctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	return c.saveDocuments(sctx, docs)
}

// pendingEntry is a journal entry begun for a commit; nil when there is no
// journal.
type pendingEntry struct {
	p *changes.Pending
	// unjournaled: there is no journal and changes.required is false; the
	// result says the change cannot be reverted.
	unjournaled bool
}

// journalBegin records chs, before they are committed, as one entry of the
// call's tool and id.
func (c *Committer) journalBegin(ctx context.Context, chs []*fileChange, revertOf []string) (*pendingEntry, error) {
	if c.journal == nil {
		if c.journalErr == nil {
			return nil, nil
		}
		if required := c.settings().Changes.Required; required == nil || *required {
			return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "the journal of changes could not be opened (%v), and whale makes no change it cannot take back; nothing was changed — ask the user to fix the state folder (free space, permissions) and restart whale, or to set changes.required to false", c.journalErr)
		}
		return &pendingEntry{unjournaled: true}, nil
	}
	var files []changes.FileChange
	for _, ch := range chs {
		s := ch.src
		where := changes.WhereDisk
		if s.doc != nil {
			where = changes.WhereEditor
		}
		switch {
		case ch.delete:
			files = append(files, changes.FileChange{Path: s.t.Abs, Before: s.raw, BeforeExists: true, Where: where})
		case ch.dst != nil:
			files = append(files,
				changes.FileChange{Path: s.t.Abs, Before: s.raw, BeforeExists: true, Where: where},
				changes.FileChange{Path: ch.dst.t.Abs, Before: ch.dst.raw, BeforeExists: ch.dst.exists, After: ch.plan.New, AfterExists: true, Where: changes.WhereDisk})
		default:
			files = append(files, changes.FileChange{Path: s.t.Abs, Before: s.raw, BeforeExists: s.exists, After: ch.plan.New, AfterExists: true, Where: where})
		}
	}
	meta := changes.Meta{Tool: toolbridge.CallTool(ctx), CallID: toolbridge.CallID(ctx), Agent: toolbridge.CallAgent(ctx), RevertOf: revertOf}
	if w, ok := ctx.Value(writerKey{}).(writerInfo); ok {
		meta.Tool, meta.Agent = w.tool, w.agent
	}
	p, err := c.journal.Begin(meta, files)
	if err != nil {
		return nil, toolbridge.Fail(toolbridge.CodeInternal, "the change could not be recorded in the journal of changes (%v), so it was not made; nothing was changed — retry, and if it persists ask the user to check the state folder's free space", err)
	}
	return &pendingEntry{p: p}, nil
}

// abort removes the entry of a commit that failed.
func (e *pendingEntry) abort() {
	if e != nil && e.p != nil {
		e.p.Abort()
	}
}

// commit publishes the entry of a commit that succeeded and returns the
// note for the result, naming the entry (changes_revert takes it back), and
// the entry's id.
func (e *pendingEntry) commit(log *slog.Logger) (note, id string) {
	if e == nil {
		return "", ""
	}
	if e.unjournaled {
		return "(Not journaled: the journal of changes could not be opened and changes.required is false, so changes_revert cannot take this change back.)", ""
	}
	entry, err := e.p.Commit()
	if err != nil {
		log.Error("a committed change could not be published in the journal", "err", err)
		return "(The change is made, but the journal could not record it, so changes_revert cannot take it back.)", ""
	}
	// changes_revert's description says what an entry is for; the id alone
	// is what the model (and the editors, which read it from the text) need.
	return fmt.Sprintf("(Journal entry %s.)", entry.ID), entry.ID
}

// diskFailure keeps the edits package's errors (write_conflict, invalid
// paths) and turns the filesystem's into edit_rejected.
func diskFailure(err error) error {
	if edits.CodeOf(err) != "" {
		return err
	}
	return toolbridge.Fail(toolbridge.CodeEditRejected, "the filesystem refused the change (%v); nothing was changed — check the path, permissions and free space, then retry", err)
}

// revertDocuments undoes applied buffer changes after a later part of the
// same commit failed, as far as the editor allows.
func (c *Committer) revertDocuments(ctx context.Context, chs []*fileChange) {
	var back []toolbridge.DocumentChange
	for _, ch := range chs {
		newText, oldText := string(ch.plan.New), ch.src.doc.Text
		if doc, ok := c.editor.Document(ch.src.t.Abs); ok && doc.Text == newText {
			back = append(back, toolbridge.DocumentChange{Path: doc.Path, Version: doc.Version, Edits: minimalEdits(newText, oldText), NewText: oldText})
		}
	}
	if len(back) > 0 {
		if err := c.editor.ApplyEdits(context.WithoutCancel(ctx), back); err != nil {
			c.log.Error("could not revert editor buffers after a failed commit", "err", err)
		}
	}
}

// rememberWritten updates the read ledger after a commit: the model wrote
// the new content itself, so it knows it, unless it had not seen the
// content its change was applied to.
func (c *Committer) rememberWritten(chs ...*fileChange) {
	if c.reads == nil {
		return
	}
	for _, ch := range chs {
		if ch.delete {
			continue
		}
		t := ch.src.t
		if ch.dst != nil {
			t = ch.dst.t
		}
		c.reads.Wrote(t.Abs, ch.plan.New, !ch.src.stale)
	}
}

// explainMissedTarget turns a search that no longer matches into the truth
// when the ledger can tell it: the text the edit searches for was in the
// file the model last read, and the lines that held it have changed since
// (by another whale edit, or outside whale). Otherwise it returns the
// matcher's own failure.
func (c *Committer) explainMissedTarget(src *editSource, steps []edits.Edit, err error) error {
	if edits.CodeOf(err) != edits.CodeSearchNotFound || c.reads == nil {
		return editFailure(src.shown, err)
	}
	read := c.reads.LastRead(src.t.Abs)
	if read == nil || bytes.Equal(read, src.raw) {
		return editFailure(src.shown, err)
	}
	then, perr := edits.PlanEdits(context.Background(), read, steps)
	cur, derr := edits.Decode(src.raw)
	if perr != nil || derr != nil || len(then.Applied.Lines) == 0 {
		return editFailure(src.shown, err)
	}
	span := 1
	for _, s := range steps {
		span = max(span, strings.Count(strings.TrimSuffix(s.Search, "\n"), "\n")+1)
	}
	first := then.Applied.Lines[0]
	last := then.Applied.Lines[len(then.Applied.Lines)-1] + span - 1
	from, to, ok := edits.ChangedLines(then.OldText, cur.Text, first, last)
	if !ok {
		return editFailure(src.shown, err)
	}
	who := "since then"
	if c.reads.WhaleWrote(src.t.Abs, src.raw) {
		who = "since then by another whale edit (an earlier or parallel tool call)"
	}
	where := fmt.Sprintf("lines %d–%d now hold other text", from, to)
	reread := fmt.Sprintf("lines %d–%d", from, to)
	switch {
	case from > to:
		where = fmt.Sprintf("those lines were deleted (they were just above line %d)", from)
		reread = fmt.Sprintf("the lines around %d", from)
	case from == to:
		where = fmt.Sprintf("line %d now holds other text", from)
		reread = fmt.Sprintf("line %d", from)
	}
	at := fmt.Sprintf("line %d", first)
	if last > first {
		at = fmt.Sprintf("lines %d–%d", first, last)
	}
	return &toolbridge.Failure{
		Code: toolbridge.CodeWriteConflict,
		Text: fmt.Sprintf("%s: the text this edit searches for was at %s when you read the file, but it changed %s: %s. Nothing was written — re-read %s and redo the edit on their current text.", src.shown, at, who, where, reread),
		Data: map[string]any{"lines": []int{from, max(from, to)}},
	}
}

// holderText names the processes holding a lock, for a model or a person.
func holderText(e *filelock.HeldError) string {
	if len(e.Holders) == 0 {
		return "the system does not say which"
	}
	return "held by " + strings.Join(e.Holders, ", ")
}

// minimalEdits is edits.MinimalEdits in the tool contract's types.
func minimalEdits(oldText, newText string) []toolbridge.TextEdit {
	es := edits.MinimalEdits(oldText, newText)
	if es == nil {
		return nil
	}
	out := make([]toolbridge.TextEdit, len(es))
	for i, e := range es {
		out[i] = toolbridge.TextEdit{Start: toolbridge.Pos(e.Start), End: toolbridge.Pos(e.End), NewText: e.NewText}
	}
	return out
}

package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed changes_revert.md
var changesRevertDoc string

type changesRevertInput struct {
	ID string `json:"id"`
	To string `json:"to"`
}

// ChangesRevert is changes_revert: takes back one journal entry, or an
// entry and every later one, through c, as a change of its own.
func ChangesRevert(c *Committer) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "changes_revert",
		Description: changesRevertDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{
			"id": toolbridge.Str("The entry to revert (an id from changes_list). Give id or to."),
			"to": toolbridge.Str("Revert this entry and every later one, newest first (an id from changes_list). Give id or to."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in changesRevertInput) (toolbridge.Result, error) {
		id, to := strings.TrimSpace(in.ID), strings.TrimSpace(in.To)
		if (id == "") == (to == "") {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "give exactly one of id (revert that entry) and to (revert it and every later entry); changes_list shows the ids")
		}
		ids, err := c.revertIDs(id, to)
		if err != nil {
			return toolbridge.Result{}, c.withRevertMessage(err)
		}
		return c.Revert(ctx, ids)
	})
}

// revertIDs is the entries a revert takes back, newest first: id alone, or
// to and every later entry.
func (c *Committer) revertIDs(id, to string) ([]string, error) {
	if c.journal == nil {
		return nil, noJournal()
	}
	if id != "" {
		return []string{id}, nil
	}
	if _, err := c.journal.Get(to); err != nil {
		return nil, entryFailure(to, err)
	}
	later, _, err := c.journal.List(to, 0)
	if err != nil {
		return nil, toolbridge.Fail(toolbridge.CodeInternal, "the journal of changes could not be read (%v); retry, and report it if it persists", err)
	}
	ids := make([]string, 0, len(later)+1)
	for _, e := range later {
		ids = append(ids, e.ID)
	}
	return append(ids, to), nil
}

// Revert takes back the journal entries ids (newest first), all or
// nothing: each file gets the inverse of what the entries did, merged into
// its current content, through the commit path (the editor for an open
// document), journaled as an entry that reverts them. A conflict with a
// later change of the same lines changes nothing and lists the hunks.
func (c *Committer) Revert(ctx context.Context, ids []string) (toolbridge.Result, error) {
	paths, err := c.revertPaths(ids)
	if err != nil {
		return toolbridge.Result{}, c.withRevertMessage(err)
	}
	chs, note, entryID, err := c.commit(ctx, paths, c.revertPlanner(ctx, ids), ids)
	if err != nil {
		return toolbridge.Result{}, c.withRevertMessage(err)
	}
	texts := make([]string, 0, len(chs))
	files := make([]string, 0, len(chs))
	for _, ch := range chs {
		texts = append(texts, ch.result("", edits.Applied{}).Text)
		files = append(files, ch.src.t.Abs)
	}
	sort.Strings(files)
	head := fmt.Sprintf("Reverted %s in %d %s.", strings.Join(ids, ", "), len(chs), editPlural(len(chs), "file", "files"))
	if note != "" {
		head += " " + note
	}
	var shown []string
	for _, ch := range chs {
		shown = append(shown, ch.src.displayPath())
	}
	message := "Reverted " + strings.Join(shown, ", ") + "."
	return toolbridge.Result{Text: head + "\n\n" + strings.Join(texts, "\n\n"), Data: map[string]any{"reverted": ids, "files": files, "entry": entryID, "message": message},
		MoreHint: "the revert was applied in full; read_file shows the result"}, nil
}

// revertPaths is the files the entries ids changed, each once.
func (c *Committer) revertPaths(ids []string) ([]string, error) {
	if c.journal == nil {
		return nil, noJournal()
	}
	var paths []string
	seen := map[string]bool{}
	for _, id := range ids {
		e, err := c.journal.Get(id)
		if err != nil {
			return nil, entryFailure(id, err)
		}
		for _, f := range e.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				paths = append(paths, f.Path)
			}
		}
	}
	return paths, nil
}

// revertPlanner plans the revert of ids (the commit's and the preview's
// plan).
func (c *Committer) revertPlanner(ctx context.Context, ids []string) planner {
	return func(load loader) ([]*fileChange, error) {
		return c.planRevert(ctx, ids, load)
	}
}

// planRevert plans the revert of ids on the files' current content, loaded
// under the commit's locks.
func (c *Committer) planRevert(ctx context.Context, ids []string, load loader) ([]*fileChange, error) {
	srcs := map[string]*editSource{}
	get := func(path string) (*editSource, error) {
		if s, ok := srcs[path]; ok {
			return s, nil
		}
		s, err := load(path, true)
		if err != nil {
			return nil, err
		}
		s.shown = s.displayPath()
		srcs[path] = s
		return s, nil
	}
	plan, err := c.journal.PlanRevert(ctx, ids, func(path string) ([]byte, bool, error) {
		s, err := get(path)
		if err != nil {
			return nil, false, err
		}
		return s.raw, s.exists, nil
	})
	var failure *toolbridge.Failure
	switch {
	case errors.As(err, &failure):
		return nil, err
	case errors.Is(err, changes.ErrNotFound) || errors.Is(err, changes.ErrDamaged):
		return nil, toolbridge.Fail(toolbridge.CodeNotFound, "the journal no longer holds what the change wrote (%v), so it cannot be reverted; restore the file by hand or with edit", err)
	case err != nil:
		return nil, err
	case len(plan.Conflicts) > 0:
		return nil, revertConflict(plan.Conflicts)
	case len(plan.Files) == 0:
		return nil, toolbridge.Fail(toolbridge.CodeNoChange, "the files already hold what reverting %s would restore; nothing was changed", strings.Join(ids, ", "))
	}
	chs := make([]*fileChange, 0, len(plan.Files))
	for _, f := range plan.Files {
		s, err := get(f.Path)
		if err != nil {
			return nil, err
		}
		if !f.Exists {
			chs = append(chs, &fileChange{src: s, delete: true, plan: edits.Change{OldText: editDecodedText(s.raw)}})
			continue
		}
		planned := edits.Change{OldText: editDecodedText(s.raw), NewText: editDecodedText(f.Content), New: f.Content}
		if d, err := edits.Decode(f.Content); err == nil {
			planned.Format = d.Format
		}
		chs = append(chs, s.change(planned))
	}
	return chs, nil
}

// revertConflict lists, per file, the hunks a revert cannot merge.
func revertConflict(conflicts []changes.FileConflict) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the revert conflicts with later changes of the same lines in %d %s, so nothing was changed; revert the later entries first (changes_list shows them), or tell the user:", len(conflicts), editPlural(len(conflicts), "file", "files"))
	list := make([]map[string]any, 0, len(conflicts))
	for _, fc := range conflicts {
		fmt.Fprintf(&b, "\n\n%s: %s", fc.Path, fc.Reason)
		for _, h := range fc.Hunks {
			b.WriteString("\n" + strings.TrimRight(h, "\n"))
		}
		list = append(list, map[string]any{"path": fc.Path, "reason": fc.Reason, "hunks": fc.Hunks})
	}
	return &toolbridge.Failure{Code: toolbridge.CodeWriteConflict, Text: b.String(), Data: map[string]any{"conflicts": list}}
}

// withRevertMessage adds to a revert's failure the sentence for the person
// who asked for it (data "message"): what stopped it and what to do, in
// words that do not assume the model's tools.
func (c *Committer) withRevertMessage(err error) error {
	var f *toolbridge.Failure
	if !errors.As(err, &f) {
		return err
	}
	data, _ := f.Data.(map[string]any)
	var message string
	switch {
	case data["unsaved"] != nil:
		message = fmt.Sprintf("Not reverted: %v has unsaved changes in the editor. Save or close it there, then revert again.", data["unsaved"])
	case data["conflicts"] != nil:
		var paths []string
		if list, ok := data["conflicts"].([]map[string]any); ok && c.journal != nil {
			for _, fc := range list {
				paths = append(paths, c.journal.RelPath(fmt.Sprint(fc["path"])))
			}
		}
		message = fmt.Sprintf("Not reverted: %s changed after this change (in the editor, or by a later change), and reverting would overwrite that. Revert the later changes first, or edit the file by hand.", strings.Join(paths, ", "))
	case f.Code == toolbridge.CodeNoChange:
		message = "Nothing to revert: the files already hold what reverting this change would restore."
	case f.Code == toolbridge.CodeNotFound:
		message = "Not reverted: whale's history no longer holds this change (the oldest history is dropped beyond changes.maxBytes). Refresh the list, or restore the files by hand."
	case f.Code == toolbridge.CodeNotConfigured:
		message = "Not reverted: this session keeps no history of changes (whale has no state folder here). Restore the files by hand."
	case f.Code == toolbridge.CodeCanceled:
		message = "The revert was canceled; nothing was changed. Revert again when you want it."
	case f.Code == toolbridge.CodeWriteConflict:
		message = "Not reverted: a file changed while the revert was being prepared. Revert again."
	default:
		message = "Not reverted: " + f.Text
	}
	out := *f
	d := map[string]any{"message": message}
	for k, v := range data {
		d[k] = v
	}
	out.Data = d
	return &out
}

package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed changes_list.md
var changesListDoc string

// Bounds of changes_list.
const (
	changesDefaultLimit = 20
	changesMaxLimit     = 200
)

type changesListInput struct {
	Limit int    `json:"limit"`
	Since string `json:"since"`
	ID    string `json:"id"`
}

// ChangesList is changes_list: the journal's entries, newest first, or one
// entry with its diff. j nil: the session has no journal.
func ChangesList(j *changes.Journal) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "changes_list",
		Description: changesListDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{
			"limit": toolbridge.Int(fmt.Sprintf("Most entries to list (default %d, at most %d).", changesDefaultLimit, changesMaxLimit), 1),
			"since": toolbridge.Str("Optional: an entry id; only newer entries are listed."),
			"id":    toolbridge.Str("Optional: one entry's id; it is shown with the diff of every file it changed."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in changesListInput) (toolbridge.Result, error) {
		if j == nil {
			return toolbridge.Result{}, noJournal()
		}
		if id := strings.TrimSpace(in.ID); id != "" {
			e, err := j.Get(id)
			if err != nil {
				return toolbridge.Result{}, entryFailure(id, err)
			}
			diff, err := j.Diff(id)
			if err != nil {
				return toolbridge.Result{}, entryFailure(id, err)
			}
			by, err := j.RevertedBy()
			if err != nil {
				return toolbridge.Result{}, entryFailure(id, err)
			}
			return toolbridge.Result{Text: entryLine(j, e, by[e.ID]) + "\n\n" + fencedDiff(diff), Data: map[string]any{"entry": entryData(j, e, by[e.ID])}}, nil
		}
		entries, dropped, err := j.List(strings.TrimSpace(in.Since), toolbridge.Bounded(in.Limit, changesDefaultLimit, changesMaxLimit))
		if err != nil {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInternal, "the journal of changes could not be read (%v); retry, and report it if it persists", err)
		}
		by, err := j.RevertedBy()
		if err != nil {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInternal, "the journal of changes could not be read (%v); retry, and report it if it persists", err)
		}
		var b strings.Builder
		switch {
		case len(entries) == 0 && in.Since != "":
			fmt.Fprintf(&b, "No changes after %s.", excerpt.Quote(in.Since))
		case len(entries) == 0:
			b.WriteString("No changes are journaled in this workspace yet.")
		default:
			fmt.Fprintf(&b, "%d %s (newest first):", len(entries), editPlural(len(entries), "change", "changes"))
		}
		list := make([]map[string]any, 0, len(entries))
		for _, e := range entries {
			b.WriteString("\n" + entryLine(j, e, by[e.ID]))
			list = append(list, entryData(j, e, by[e.ID]))
		}
		if dropped > 0 {
			fmt.Fprintf(&b, "\n(%d older %s were dropped to keep the journal within changes.maxBytes.)", dropped, editPlural(dropped, "entry", "entries"))
		}
		return toolbridge.Result{Text: b.String(), Data: map[string]any{"entries": list, "dropped": dropped}}, nil
	})
}

// entryLine is one entry as changes_list shows it: id, time, summary,
// what it reverts and what reverted it.
func entryLine(j *changes.Journal, e changes.Entry, revertedBy string) string {
	line := e.ID + "  " + e.Time.Local().Format("2006-01-02 15:04:05") + "  " + e.Summary
	if len(e.RevertOf) > 0 {
		line += " (reverts " + strings.Join(e.RevertOf, ", ") + ")"
	}
	if revertedBy != "" {
		line += " (reverted by " + revertedBy + ")"
	}
	return line
}

// entryData is an entry in a result's data, with snake_case keys: paths
// absolute (path) and relative to the workspace folder (rel_path), and the
// entry's line for a person (title).
func entryData(j *changes.Journal, e changes.Entry, revertedBy string) map[string]any {
	files := make([]map[string]any, 0, len(e.Files))
	for _, f := range e.Files {
		files = append(files, map[string]any{
			"path": f.Path, "rel_path": j.RelPath(f.Path), "name": filepath.Base(f.Path), "where": f.Where, "added": f.Added, "removed": f.Removed,
			"created": f.Before == "" && f.After != "", "deleted": f.After == "" && f.Before != "",
		})
	}
	d := map[string]any{"id": e.ID, "time": e.Time, "tool": e.Tool, "call_id": e.CallID, "summary": e.Summary, "title": j.Title(e), "files": files}
	if len(e.RevertOf) > 0 {
		d["revert_of"] = e.RevertOf
	}
	if e.Command != "" {
		d["command"] = e.Command
	}
	if revertedBy != "" {
		d["reverted_by"] = revertedBy
	}
	return d
}

// noJournal is the failure of the changes tools in a session without a
// journal.
func noJournal() error {
	return toolbridge.Fail(toolbridge.CodeNotConfigured, "this session keeps no journal of changes (it has no state folder), so changes cannot be listed or reverted; undo a change with edit instead")
}

// entryFailure turns the journal's error about entry id into a Failure.
func entryFailure(id string, err error) error {
	if errors.Is(err, changes.ErrNotFound) {
		return toolbridge.Fail(toolbridge.CodeNotFound, "there is no change %s in the journal; call changes_list for the ids", excerpt.Quote(id))
	}
	return toolbridge.Fail(toolbridge.CodeInternal, "the journal entry %s could not be read (%v); list the changes again with changes_list", excerpt.Quote(id), err)
}

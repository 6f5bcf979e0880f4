package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// editFileLimit is the largest file the edit tools load into memory.
const editFileLimit = 64 << 20

// editSource is a file an edit tool is about to change, with the content its
// plan is computed from.
type editSource struct {
	t      workspace.Target
	shown  string
	doc    *toolbridge.Document // the editor buffer, when the file is open there
	raw    []byte               // the buffer text or the disk bytes
	exists bool
	stale  bool // the model's last read_file saw other content
}

// loadForEdit resolves a path for writing and loads its current content.
// A missing file is an error unless mayCreate.
func (c *Committer) loadForEdit(shown string, mayCreate bool) (*editSource, error) {
	t, err := resolve(c.ws, shown, workspace.Write)
	if err != nil {
		return nil, err
	}
	src := &editSource{t: t, shown: shown}
	if t.Rel == "." {
		return nil, toolbridge.Fail(toolbridge.CodeIsDirectory, "%s is a workspace folder, not a file; give the path of a file inside it", shown)
	}
	if c.editor != nil {
		if doc, ok := c.editor.Document(t.Abs); ok {
			src.doc, src.raw, src.exists = &doc, []byte(doc.Text), true
			src.stale = c.reads != nil && c.reads.ChangedSinceRead(t.Abs, src.raw)
			return src, nil
		}
	}
	if fi, err := t.Root.FS.Stat(t.Rel); err == nil {
		if fi.IsDir() {
			return nil, toolbridge.Fail(toolbridge.CodeIsDirectory, "%s is a folder, not a file; give the path of a file inside it", shown)
		}
		if fi.Mode().Perm()&0o200 == 0 {
			return nil, toolbridge.Fail(toolbridge.CodeEditRejected, "%s is read-only (mode %v); it was left untouched — make it writable first (chmod u+w) if it really should change", shown, fi.Mode().Perm())
		}
		if fi.Size() > editFileLimit {
			return nil, toolbridge.Fail(toolbridge.CodeTooLarge, "%s is %d bytes, more than the edit tools load (%d); change it with a shell command such as sed", shown, fi.Size(), editFileLimit)
		}
	}
	raw, exists, err := edits.ReadFile(t.Root.FS, t.Rel)
	if err != nil {
		return nil, statFailure(t, shown, err)
	}
	if !exists && !mayCreate {
		return nil, statFailure(t, shown, fs.ErrNotExist)
	}
	src.raw, src.exists = raw, exists
	src.stale = exists && c.reads != nil && c.reads.ChangedSinceRead(t.Abs, raw)
	return src, nil
}

// fileChange is one file's planned change, ready to commit.
type fileChange struct {
	src     *editSource
	plan    edits.Change
	delete  bool
	created bool
	// dst is set for a rename: the file at src is deleted and this change's
	// content written at dst.
	dst     *editSource
	applied edits.Applied
}

func (s *editSource) change(plan edits.Change) *fileChange {
	return &fileChange{src: s, plan: plan, created: !s.exists}
}

// displayPath is the path shown in diffs and messages: relative to its root.
func (s *editSource) displayPath() string { return s.t.Rel }

// editFailure turns an error of the edits package into a Failure that names
// the file (shown is "" when the message already names it).
func editFailure(shown string, err error) error {
	var e *edits.Error
	if !errors.As(err, &e) {
		return err
	}
	f := &toolbridge.Failure{Code: e.Code, Text: e.Message}
	if shown != "" {
		f.Text = shown + ": " + e.Message
	}
	if e.Step > 0 || len(e.Lines) > 0 {
		data := map[string]any{}
		if e.Step > 0 {
			data["step"] = e.Step
		}
		if len(e.Lines) > 0 {
			data["lines"] = e.Lines
		}
		f.Data = data
	}
	return f
}

// editSteps is edit and multi_edit: plan all steps in memory on the file's
// current text, then commit.
func (c *Committer) editSteps(ctx context.Context, shown string, steps []edits.Edit) (toolbridge.Result, error) {
	chs, note, err := c.commitPath(ctx, []string{shown}, c.editPlanner(ctx, shown, steps))
	if err != nil {
		return toolbridge.Result{}, err
	}
	return chs[0].result(note, chs[0].plan.Applied), nil
}

// editPlanner plans edit and multi_edit steps on the file's current text
// (the commit's and the preview's plan).
func (c *Committer) editPlanner(ctx context.Context, shown string, steps []edits.Edit) planner {
	return func(load loader) ([]*fileChange, error) {
		src, err := load(shown, false)
		if err != nil {
			return nil, err
		}
		plan, err := edits.PlanEdits(ctx, src.raw, steps)
		if err != nil {
			return nil, c.explainMissedTarget(src, steps, err)
		}
		return []*fileChange{src.change(plan)}, nil
	}
}

// saveDocuments asks the editor to save the changed documents when the
// settings want it, and says where the change now is.
func (c *Committer) saveDocuments(ctx context.Context, chs []*fileChange) string {
	paths := make([]string, len(chs))
	for i, ch := range chs {
		paths[i] = ch.src.t.Abs
	}
	if !c.settings().SaveAfterApply() {
		return "The change is in the editor buffer, not saved (edits.saveAfterApply is off): shell commands see the old file until it is saved."
	}
	saved, supported, err := c.editor.SaveDocuments(ctx, paths)
	switch {
	case err != nil:
		return fmt.Sprintf("The change is in the editor buffer; saving it failed (%v): shell commands see the old file until it is saved.", err)
	case !supported:
		return "The change is in the editor buffer only: this editor cannot save on request, so shell commands see the old file until it is saved."
	case len(saved) < len(paths):
		return fmt.Sprintf("The change is in the editor; %d of %d changed files were saved, the rest are unsaved buffers.", len(saved), len(paths))
	}
	return "Applied in the editor and saved."
}

// result renders a successful change for the model.
func (ch *fileChange) result(note string, a edits.Applied) toolbridge.Result {
	diff, st := ch.diff()
	var b strings.Builder
	name := ch.src.shown
	switch {
	case ch.created:
		fmt.Fprintf(&b, "Created %s (%d %s, %s).", name, st.Added, editPlural(st.Added, "line", "lines"), ch.plan.Format.Describe())
	case ch.delete && editUndecodable(ch.src.raw):
		fmt.Fprintf(&b, "Deleted %s (%d bytes, not text).", name, len(ch.src.raw))
	case ch.delete:
		fmt.Fprintf(&b, "Deleted %s (%d %s).", name, st.Removed, editPlural(st.Removed, "line", "lines"))
	case ch.dst != nil:
		fmt.Fprintf(&b, "Moved %s to %s (+%d -%d lines).", name, ch.dst.shown, st.Added, st.Removed)
	case a.Replacements > 0 && len(a.Lines) > 0:
		fmt.Fprintf(&b, "Edited %s: %d %s at %s %s (+%d -%d lines).", name, a.Replacements, editPlural(a.Replacements, "replacement", "replacements"),
			editPlural(len(a.Lines), "line", "lines"), editJoinInts(a.Lines), st.Added, st.Removed)
	default:
		fmt.Fprintf(&b, "Wrote %s (+%d -%d lines).", name, st.Added, st.Removed)
	}
	if len(a.Repairs) > 0 {
		fmt.Fprintf(&b, " The search did not match exactly; it was matched with: %s — check the diff.", strings.Join(a.Repairs, ", "))
	}
	if ch.src.stale {
		b.WriteString(" Note: the file had changed since you last read it; the search still matched one place, but read it again before further edits.")
	}
	if note != "" {
		b.WriteString(" " + note)
	}
	if diff != "" {
		b.WriteString("\n\n" + fencedDiff(shortDiff(diffHunks(diff))))
	}
	target := "disk"
	if ch.src.doc != nil {
		target = "editor"
	}
	data := map[string]any{
		"path": ch.src.t.Abs, "added": st.Added, "removed": st.Removed,
		"replacements": a.Replacements, "target": target, "format": ch.plan.Format.Describe(),
	}
	if len(a.Lines) > 0 {
		data["lines"] = a.Lines
	}
	if ch.src.stale {
		data["changed_since_read"] = true
	}
	return toolbridge.Result{Text: b.String(), Data: data, Repairs: a.Repairs, MoreHint: "the change was applied in full; read_file shows the result"}
}

// diff is the change's unified diff, its paths relative to their
// workspace folder, and its line counts.
func (ch *fileChange) diff() (string, edits.Stat) {
	oldPath, newPath := ch.src.displayPath(), ch.src.displayPath()
	switch {
	case ch.created:
		oldPath = ""
	case ch.delete:
		newPath = ""
	case ch.dst != nil:
		newPath = ch.dst.displayPath()
	}
	return edits.UnifiedDiff(oldPath, newPath, ch.plan.OldText, ch.plan.NewText)
}

// diffHunks is a unified diff without its "---"/"+++" lines: the result's
// first line names the file (and where it went), so in the text the model
// reads they would only say it again.
func diffHunks(diff string) string {
	if i := strings.Index(diff, "\n@@"); i >= 0 && strings.HasPrefix(diff, "--- ") {
		return diff[i+1:]
	}
	return diff
}

// diffShown is how much of a change's diff a result shows: enough for any
// ordinary edit, while a rewrite of a large file does not flood the
// model's context.
const diffShown = 6 << 10

// shortDiff cuts a unified diff to about diffShown bytes at a line break
// and says how much was left out.
func shortDiff(diff string) string {
	if len(diff) <= diffShown {
		return diff
	}
	cut := strings.LastIndexByte(diff[:diffShown], '\n') + 1
	rest := diff[cut:]
	return fmt.Sprintf("%s… %d more diff lines (%d bytes) not shown; read_file shows the result\n", diff[:cut], strings.Count(rest, "\n"), len(rest))
}

func editPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func editJoinInts(xs []int) string {
	parts := make([]string, 0, len(xs))
	for i, x := range xs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(xs)-i))
			break
		}
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}

// editDecodedText returns the LF text of raw, or "" when it does not decode.
func editDecodedText(raw []byte) string {
	if d, err := edits.Decode(raw); err == nil {
		return d.Text
	}
	return ""
}

// editUndecodable reports whether raw is not text the edits package reads
// (a deleted binary file, for one).
func editUndecodable(raw []byte) bool {
	_, err := edits.Decode(raw)
	return err != nil
}

func editAppendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, l := range list {
			if l == it {
				found = true
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

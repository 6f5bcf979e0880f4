package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

var (
	//go:embed edit.md
	editDoc string
	//go:embed multi_edit.md
	multiEditDoc string
	//go:embed write.md
	writeDoc string
	//go:embed apply_patch.md
	applyPatchDoc string
)

// editTools is the edit group: edit, multi_edit, write, apply_patch. Every
// change is planned in memory against the file's current text (the editor's
// buffer when the file is open there, else the bytes on disk) and committed
// all at once or not at all.
func editTools(d *Deps) []toolbridge.Tool {
	return []toolbridge.Tool{editTool(d), multiEditTool(d), writeTool(d), applyPatchTool(d)}
}

// editFileLimit is the largest file the edit tools load into memory.
const editFileLimit = 64 << 20

type editStep struct {
	Search  string `json:"search"`
	Replace string `json:"replace"`
	All     bool   `json:"all"`
}

type editInput struct {
	FilePath string `json:"file_path"`
	editStep
}

type multiEditInput struct {
	FilePath string     `json:"file_path"`
	Edits    []editStep `json:"edits"`
}

type writeInput struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

type applyPatchInput struct {
	Patch string `json:"patch"`
}

func stepSchema() map[string]*toolbridge.Schema {
	return map[string]*toolbridge.Schema{
		"search":  toolbridge.Str("Text to find, copied from the file as it is now (without read_file's line-number prefixes), with two or three surrounding lines when it is short or repeated; it must match exactly one place unless all is true."),
		"replace": toolbridge.Str("Text to put in its place (may be empty to delete)."),
		"all":     toolbridge.Bool("Replace every place the search matches instead of requiring exactly one (default false)."),
	}
}

func editTool(d *Deps) toolbridge.Tool {
	props := stepSchema()
	props["file_path"] = toolbridge.PathStr("File to change, inside the workspace.")
	spec := toolbridge.Spec{
		Name:        "edit",
		Description: editDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"file_path", "search", "replace"}, props),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in editInput) (toolbridge.Result, error) {
		return d.editSteps(ctx, in.FilePath, []edits.Edit{{Search: in.Search, Replace: in.Replace, All: in.All}})
	})
}

func multiEditTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "multi_edit",
		Description: multiEditDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"file_path", "edits"}, map[string]*toolbridge.Schema{
			"file_path": toolbridge.PathStr("File to change, inside the workspace."),
			"edits":     toolbridge.Arr("Steps applied in order, each to the result of the previous one; all succeed or nothing is written.", toolbridge.Object([]string{"search", "replace"}, stepSchema())),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in multiEditInput) (toolbridge.Result, error) {
		if len(in.Edits) == 0 {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "edits is empty; give at least one {search, replace} step, or use edit for a single change")
		}
		steps := make([]edits.Edit, len(in.Edits))
		for i, e := range in.Edits {
			steps[i] = edits.Edit{Search: e.Search, Replace: e.Replace, All: e.All}
		}
		return d.editSteps(ctx, in.FilePath, steps)
	})
}

func writeTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "write",
		Description: writeDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"file_path", "content"}, map[string]*toolbridge.Schema{
			"file_path": toolbridge.PathStr("File to create or overwrite, inside the workspace; missing folders are created."),
			"content":   toolbridge.Str("The whole new content of the file, never a fragment or a placeholder for unchanged parts."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in writeInput) (toolbridge.Result, error) {
		chs, note, err := d.commitPath(ctx, []string{in.FilePath}, func(load loader) ([]*fileChange, error) {
			src, err := load(in.FilePath, true)
			if err != nil {
				return nil, err
			}
			plan, err := edits.PlanWrite(src.t.Rel, src.raw, src.exists, in.Content)
			if err != nil {
				return nil, editFailure(src.shown, err)
			}
			return []*fileChange{src.change(plan)}, nil
		})
		if err != nil {
			return toolbridge.Result{}, err
		}
		return chs[0].result(note, chs[0].plan.Applied), nil
	})
}

func applyPatchTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "apply_patch",
		Description: applyPatchDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"patch"}, map[string]*toolbridge.Schema{
			"patch": toolbridge.Str("A unified diff of one or more files (--- a/path, +++ b/path, @@ hunks; /dev/null creates or deletes a file), or a *** Begin Patch … *** End Patch envelope (*** Add File: with + lines, *** Delete File:, *** Update File: with @@ chunks; *** End of File closes a chunk that ends the file). A Markdown fence or shell heredoc around it is removed."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in applyPatchInput) (toolbridge.Result, error) {
		return d.applyPatch(ctx, in.Patch)
	})
}

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
func (d *Deps) loadForEdit(shown string, mayCreate bool) (*editSource, error) {
	t, err := d.Resolve(shown, workspace.Write)
	if err != nil {
		return nil, err
	}
	src := &editSource{t: t, shown: shown}
	if t.Rel == "." {
		return nil, toolbridge.Fail(toolbridge.CodeIsDirectory, "%s is a workspace folder, not a file; give the path of a file inside it", shown)
	}
	if d.Editor != nil {
		if doc, ok := d.Editor.Document(t.Abs); ok {
			src.doc, src.raw, src.exists = &doc, []byte(doc.Text), true
			src.stale = d.Reads != nil && d.Reads.ChangedSinceRead(t.Abs, src.raw)
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
		return nil, statFailure(d, t, shown, err)
	}
	if !exists && !mayCreate {
		return nil, statFailure(d, t, shown, fs.ErrNotExist)
	}
	src.raw, src.exists = raw, exists
	src.stale = exists && d.Reads != nil && d.Reads.ChangedSinceRead(t.Abs, raw)
	return src, nil
}

// fileChange is one file's planned change, ready to commit.
type fileChange struct {
	src     *editSource
	plan    edits.Plan
	delete  bool
	created bool
	// dst is set for a rename: the file at src is deleted and this change's
	// content written at dst.
	dst     *editSource
	applied edits.Applied
}

func (s *editSource) change(plan edits.Plan) *fileChange {
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
func (d *Deps) editSteps(ctx context.Context, shown string, steps []edits.Edit) (toolbridge.Result, error) {
	chs, note, err := d.commitPath(ctx, []string{shown}, func(load loader) ([]*fileChange, error) {
		src, err := load(shown, false)
		if err != nil {
			return nil, err
		}
		plan, err := edits.PlanEdits(ctx, src.raw, steps)
		if err != nil {
			return nil, d.explainMissedTarget(src, steps, err)
		}
		return []*fileChange{src.change(plan)}, nil
	})
	if err != nil {
		return toolbridge.Result{}, err
	}
	return chs[0].result(note, chs[0].plan.Applied), nil
}

// saveDocuments asks the editor to save the changed documents when the
// settings want it, and says where the change now is.
func (d *Deps) saveDocuments(ctx context.Context, chs []*fileChange) string {
	paths := make([]string, len(chs))
	for i, ch := range chs {
		paths[i] = ch.src.t.Abs
	}
	if !d.Settings().SaveAfterApply() {
		return "The change is in the editor buffer, not saved (edits.saveAfterApply is off): shell commands see the old file until it is saved."
	}
	saved, supported, err := d.Editor.SaveDocuments(ctx, paths)
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
	oldPath, newPath := ch.src.displayPath(), ch.src.displayPath()
	switch {
	case ch.created:
		oldPath = ""
	case ch.delete:
		newPath = ""
	case ch.dst != nil:
		newPath = ch.dst.displayPath()
	}
	diff, st := edits.UnifiedDiff(oldPath, newPath, ch.plan.OldText, ch.plan.NewText)
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
		b.WriteString("\n\n" + strings.TrimSuffix(shortDiff(diff), "\n"))
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
		data["changedSinceRead"] = true
	}
	return toolbridge.Result{Text: b.String(), Data: data, Repairs: a.Repairs, MoreHint: "the change was applied in full; read_file shows the result"}
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

// applyPatch plans every file of a patch against its current content (in
// order, so that two parts for one file build on each other), then commits
// them all or none.
func (d *Deps) applyPatch(ctx context.Context, patch string) (toolbridge.Result, error) {
	fps, repairs, err := edits.ParsePatch(patch)
	if err != nil {
		return toolbridge.Result{}, editFailure("", err)
	}
	var paths []string
	for _, fp := range fps {
		paths = append(paths, fp.OldPath, fp.NewPath)
	}
	var planRepairs []string
	order, note, err := d.commitPath(ctx, paths, func(load loader) ([]*fileChange, error) {
		order, rs, err := planPatch(fps, load)
		planRepairs = rs
		return order, err
	})
	if err != nil {
		return toolbridge.Result{}, err
	}
	repairs = editAppendNew(repairs, planRepairs...)
	var texts []string
	files := make([]string, 0, len(order))
	for _, ch := range order {
		r := ch.result("", ch.applied)
		texts = append(texts, r.Text)
		files = append(files, ch.src.t.Abs)
	}
	sort.Strings(files)
	head := fmt.Sprintf("Applied the patch to %d %s.", len(order), editPlural(len(order), "file", "files"))
	if len(repairs) > 0 {
		head += " Tolerances used: " + strings.Join(repairs, ", ") + " — check the diffs."
	}
	if note != "" {
		head += " " + note
	}
	return toolbridge.Result{
		Text:     head + "\n\n" + strings.Join(texts, "\n\n"),
		Data:     map[string]any{"files": files},
		Repairs:  repairs,
		MoreHint: "the patch was applied in full; read_file shows the result",
	}, nil
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

// planPatch plans every file of a parsed patch in order, loading each file
// once, so that two parts for one file build on each other. It returns the
// changes in patch order and the tolerances the hunks needed.
func planPatch(fps []edits.FilePatch, load loader) ([]*fileChange, []string, error) {
	type slot struct {
		src  *editSource
		ch   *fileChange
		text []byte // planned content so far
		gone bool
	}
	slots := map[string]*slot{}
	var order []*fileChange
	var repairs []string
	get := func(p string, mayCreate bool) (*slot, error) {
		src, err := load(p, mayCreate)
		if err != nil {
			return nil, err
		}
		if s, ok := slots[src.t.Abs]; ok {
			return s, nil
		}
		s := &slot{src: src, text: src.raw, gone: !src.exists}
		slots[src.t.Abs] = s
		return s, nil
	}
	for _, fp := range fps {
		from := fp.OldPath
		if fp.Creates() {
			from = fp.NewPath
		}
		s, err := get(from, fp.Creates())
		if err != nil {
			return nil, nil, err
		}
		plan, err := edits.PlanPatch(fp, s.text, !s.gone)
		if err != nil {
			return nil, nil, editFailure("", err)
		}
		repairs = editAppendNew(repairs, plan.Applied.Repairs...)
		switch {
		case fp.Deletes():
			if s.ch == nil {
				s.ch = &fileChange{src: s.src}
				order = append(order, s.ch)
			}
			s.ch.delete, s.ch.plan, s.gone = true, plan, true
			s.ch.plan.OldText = editDecodedText(s.src.raw)
			s.ch.applied.Replacements += plan.Applied.Replacements
		case fp.OldPath != fp.NewPath && !fp.Creates():
			dst, err := get(fp.NewPath, true)
			if err != nil {
				return nil, nil, err
			}
			if !dst.gone {
				return nil, nil, toolbridge.Fail(toolbridge.CodeWriteConflict, "%s: the patch renames %s onto a file that exists; delete or move that file first", fp.NewPath, fp.OldPath)
			}
			ch := &fileChange{src: s.src, plan: plan, dst: dst.src, applied: plan.Applied}
			order = append(order, ch)
			s.gone, dst.gone, dst.text = true, false, plan.New
			dst.ch = ch
		default:
			if s.ch == nil {
				s.ch = s.src.change(plan)
				order = append(order, s.ch)
			} else {
				// A later part for the same file, or one that creates it
				// again after an earlier part deleted it: the file is then
				// rewritten, not deleted.
				old := s.ch.plan.OldText
				s.ch.plan = plan
				s.ch.plan.OldText = old
				s.ch.delete = false
			}
			s.ch.applied.Replacements += plan.Applied.Replacements
			s.ch.applied.Lines = append(s.ch.applied.Lines, plan.Applied.Lines...)
			s.text, s.gone = plan.New, false
		}
	}
	return order, repairs, nil
}

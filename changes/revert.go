package changes

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
)

// RevertPlan is what reverting some entries makes of the files they
// changed. When Conflicts is not empty, Files is nil: the caller changes
// nothing.
type RevertPlan struct {
	Files     []FileRevert
	Conflicts []FileConflict
}

// FileRevert is one file's new state after a revert.
type FileRevert struct {
	Path    string
	Content []byte
	Exists  bool // false: delete the file
	// Current and CurrentExists are what the plan was computed from: the
	// caller commits only while the file still holds them, and journals the
	// revert as the change from them to Content (see Changes).
	Current       []byte
	CurrentExists bool
}

// FileConflict is a file a revert cannot change without overwriting
// something done after the entry.
type FileConflict struct {
	Path   string
	Reason string
	// Hunks are the blocking regions, each a short text: a header with the
	// line in the current file, then the current lines, what the entry wrote
	// and what the revert would restore, in diff3's conflict style.
	Hunks []string
}

// Changes returns the plan's files as the change a revert entry records
// (Where is where the caller commits each path).
func (p RevertPlan) Changes(where func(path string) string) []FileChange {
	out := make([]FileChange, 0, len(p.Files))
	for _, f := range p.Files {
		out = append(out, FileChange{Path: f.Path, Before: f.Current, BeforeExists: f.CurrentExists, After: f.Content, AfterExists: f.Exists, Where: where(f.Path)})
	}
	return out
}

// fileView is a file's content in the revert's in-memory view.
type fileView struct {
	content, initial      []byte
	exists, initialExists bool
}

// PlanRevert computes what reverting the entries ids makes of every file
// they changed, writing nothing. The entries are reverted newest first
// (whatever the order of ids) on an in-memory view that starts from what
// current reports; for each file:
//
//   - a file the entry changed gets the inverse of that change by Merge3
//     (base: what the entry wrote, theirs: what was there before, ours: the
//     view), so changes made elsewhere in it since survive;
//   - a file the entry created is deleted only if it still holds exactly what
//     the entry wrote (already gone: nothing to do);
//   - a file the entry deleted is recreated with its old content when it
//     does not exist; when it exists it is merged from an empty base;
//   - binary content (a NUL byte) is reverted only when unchanged since.
//
// Any other case is a conflict, reported with the blocking hunks; the plan
// is all or nothing. An unknown id is an error wrapping ErrNotFound.
func (j *Journal) PlanRevert(ctx context.Context, ids []string, current func(path string) (content []byte, exists bool, err error)) (RevertPlan, error) {
	if len(ids) == 0 {
		return RevertPlan{}, fmt.Errorf("plan revert: no change named")
	}
	entries := make([]Entry, 0, len(ids))
	for _, id := range ids {
		e, err := j.Get(id)
		if err != nil {
			return RevertPlan{}, fmt.Errorf("plan revert: %w", err)
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b Entry) int { return cmpString(b.ID, a.ID) })
	entries = slices.CompactFunc(entries, func(a, b Entry) bool { return a.ID == b.ID })
	view := map[string]*fileView{}
	var order []string
	var plan RevertPlan
	for _, e := range entries {
		for _, f := range e.Files {
			if err := ctx.Err(); err != nil {
				return RevertPlan{}, err
			}
			v := view[f.Path]
			if v == nil {
				data, ok, err := current(f.Path)
				if err != nil {
					return RevertPlan{}, fmt.Errorf("plan revert: read %s: %w", f.Path, err)
				}
				v = &fileView{content: data, initial: data, exists: ok, initialExists: ok}
				view[f.Path] = v
				order = append(order, f.Path)
			}
			before, _, err := j.content(f.Before)
			if err != nil {
				return RevertPlan{}, fmt.Errorf("plan revert %s: %w", e.ID, err)
			}
			after, _, err := j.content(f.After)
			if err != nil {
				return RevertPlan{}, fmt.Errorf("plan revert %s: %w", e.ID, err)
			}
			if c := revertFile(e, f, before, after, v); c != nil {
				plan.Conflicts = append(plan.Conflicts, *c)
			}
		}
	}
	if len(plan.Conflicts) > 0 {
		return plan, nil
	}
	slices.Sort(order)
	for _, p := range order {
		v := view[p]
		if v.exists == v.initialExists && (!v.exists || bytes.Equal(v.content, v.initial)) {
			continue
		}
		plan.Files = append(plan.Files, FileRevert{Path: p, Content: v.content, Exists: v.exists, Current: v.initial, CurrentExists: v.initialExists})
	}
	return plan, nil
}

// revertFile applies the inverse of one file's change to its view, or
// returns why it cannot.
func revertFile(e Entry, f FileRecord, before, after []byte, v *fileView) *FileConflict {
	name := f.Path
	conflict := func(reason string, hunks ...string) *FileConflict {
		return &FileConflict{Path: name, Reason: fmt.Sprintf("%s (change %s, %s)", reason, e.ID, e.Tool), Hunks: hunks}
	}
	switch {
	case f.Before == "" && f.After != "": // created
		if !v.exists {
			return nil
		}
		if !bytes.Equal(v.content, after) {
			return conflict("the change created this file and it was changed since; delete it yourself if it should go")
		}
		v.content, v.exists = nil, false
		return nil
	case f.Before != "" && f.After == "": // deleted
		if !v.exists {
			v.content, v.exists = before, true
			return nil
		}
	case !v.exists:
		return conflict("the file was deleted after the change")
	}
	if isBinary(before) || isBinary(after) || isBinary(v.content) {
		if !bytes.Equal(v.content, after) {
			return conflict("binary file changed since the change")
		}
		v.content = before
		return nil
	}
	merged, cs := Merge3(after, before, v.content)
	if len(cs) > 0 {
		hunks := make([]string, len(cs))
		for i, c := range cs {
			hunks[i] = renderConflict(c)
		}
		return conflict("lines the change touched were changed since", hunks...)
	}
	v.content = merged
	return nil
}

func isBinary(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

// maxHunkLines bounds each side of a rendered conflict.
const maxHunkLines = 12

// renderConflict shows one blocking region in diff3's conflict style.
func renderConflict(c Conflict) string {
	var b strings.Builder
	n := bytes.Count(c.Ours, []byte{'\n'})
	if len(c.Ours) > 0 && c.Ours[len(c.Ours)-1] != '\n' {
		n++
	}
	fmt.Fprintf(&b, "@@ current lines %d-%d @@\n", c.Line, c.Line+max(n, 1)-1)
	side := func(marker string, text []byte) {
		b.WriteString(marker)
		b.WriteByte('\n')
		lines := slices.Collect(bytes.Lines(text))
		for i, l := range lines {
			if i == maxHunkLines {
				fmt.Fprintf(&b, "… %d more lines\n", len(lines)-i)
				break
			}
			b.Write(bytes.TrimRight(l, "\r\n"))
			b.WriteByte('\n')
		}
	}
	side("<<<<<<< current", c.Ours)
	side("||||||| written by the change", c.Base)
	side("=======", c.Theirs)
	b.WriteString(">>>>>>> restored by the revert\n")
	return b.String()
}

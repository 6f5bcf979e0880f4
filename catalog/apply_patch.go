package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed apply_patch.md
var applyPatchDoc string

type applyPatchInput struct {
	Patch string `json:"patch"`
}

// ApplyPatch is apply_patch: a *** Begin Patch envelope of adds, updates,
// moves and deletes over several files, all or none.
func ApplyPatch(c *Committer) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "apply_patch",
		Description: applyPatchDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"patch"}, map[string]*toolbridge.Schema{
			"patch": toolbridge.Str("A unified diff of one or more files (--- a/path, +++ b/path, @@ hunks; /dev/null creates or deletes a file), or a *** Begin Patch … *** End Patch envelope (*** Add File: with + lines, *** Delete File:, *** Update File: with @@ chunks; *** End of File closes a chunk that ends the file). A Markdown fence or shell heredoc around it is removed."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in applyPatchInput) (toolbridge.Result, error) {
		return c.applyPatch(ctx, in.Patch)
	})
}

// applyPatch plans every file of a patch against its current content (in
// order, so that two parts for one file build on each other), then commits
// them all or none.
func (c *Committer) applyPatch(ctx context.Context, patch string) (toolbridge.Result, error) {
	pp, err := parsePatchPlan(patch)
	if err != nil {
		return toolbridge.Result{}, err
	}
	order, note, err := c.commitPath(ctx, pp.paths, pp.plan)
	if err != nil {
		return toolbridge.Result{}, err
	}
	repairs := editAppendNew(pp.repairs, pp.planRepairs...)
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

// patchPlan is a parsed patch ready to plan: the paths it names (the
// commit's locks), its planner, and the tolerances parsing and planning
// needed.
type patchPlan struct {
	fps         []edits.FilePatch
	paths       []string
	repairs     []string // parsing's
	planRepairs []string // the last plan's
}

// parsePatchPlan parses a patch for planning (the commit's and the
// preview's).
func parsePatchPlan(patch string) (*patchPlan, error) {
	fps, repairs, err := edits.ParsePatch(patch)
	if err != nil {
		return nil, editFailure("", err)
	}
	pp := &patchPlan{fps: fps, repairs: repairs}
	for _, fp := range fps {
		pp.paths = append(pp.paths, fp.OldPath, fp.NewPath)
	}
	return pp, nil
}

// plan is the patch's planner; it records the tolerances it used.
func (pp *patchPlan) plan(load loader) ([]*fileChange, error) {
	order, rs, err := planPatch(pp.fps, load)
	pp.planRepairs = rs
	return order, err
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

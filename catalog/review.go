package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// Review before apply (edits.review): the change is planned under the
// locks as usual, the locks are released, and the user is shown its hunks;
// what they accept is committed through the same path, on the condition
// that no reviewed file changed meanwhile — a change is never applied over
// text the user did not see.

// reviewContext is the number of unchanged lines around a hunk.
const reviewContext = 2

// reviewHunk is one replaced block of a reviewed file: lines a[a0:a1] of
// the old text become b[b0:b1] of the new. whole marks a file created,
// deleted, moved or not text, which is one hunk.
type reviewHunk struct {
	id             string
	a0, a1, b0, b1 int
	whole          bool
}

// reviewedFile is a planned change under review, with its hunks.
type reviewedFile struct {
	ch       *fileChange
	old, new []string // the texts' lines, terminators kept
	hunks    []reviewHunk
}

// reviewMode is the edits.review setting, "off" when unset or unknown.
func (c *Committer) reviewMode() string {
	switch m := c.settings().Edits.Review; m {
	case settings.ReviewAsk, settings.ReviewAskOutsideOpen:
		return m
	}
	return settings.ReviewOff
}

// review plans under the locks, asks the user about the files mode covers,
// and returns the planner that commits what was accepted and the note that
// tells the model what happened; a nil planner commits plan as it is.
func (c *Committer) review(ctx context.Context, keys []string, plan planner, mode string) (planner, string, error) {
	tx, err := c.commitLocks().Begin(ctx, keys...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", toolbridge.Fail(toolbridge.CodeCanceled, "the edit was canceled while it waited for another edit of the same file; nothing was written")
		}
		return nil, "", toolbridge.Fail(toolbridge.CodeInternal, "could not take the edit lock (%v); nothing was written — retry, and report it if it persists", err)
	}
	chs, err := plan(c.loadForEdit)
	tx.End()
	if err != nil {
		return nil, "", err
	}
	var files []*reviewedFile
	for _, ch := range chs {
		if mode == settings.ReviewAskOutsideOpen && ch.src.doc != nil {
			continue
		}
		files = append(files, reviewFileOf(ch))
	}
	if len(files) == 0 {
		return nil, "", nil
	}
	n := 0
	for _, f := range files {
		for i := range f.hunks {
			n++
			f.hunks[i].id = fmt.Sprintf("h%d", n)
		}
	}
	accepted, note, err := c.askReview(ctx, files)
	if err != nil {
		return nil, "", err
	}
	reviewed := map[*fileChange]*reviewedFile{}
	for _, f := range files {
		reviewed[f.ch] = f
	}
	return func(load loader) ([]*fileChange, error) {
		var out []*fileChange
		for _, ch := range chs {
			src, err := reload(load, ch.src)
			if err != nil {
				return nil, err
			}
			next := *ch
			next.src = src
			if ch.dst != nil {
				if next.dst, err = reload(load, ch.dst); err != nil {
					return nil, err
				}
			}
			if f := reviewed[ch]; f != nil {
				planned, keep := f.accepted(accepted)
				if !keep {
					continue
				}
				next.plan = planned
			}
			out = append(out, &next)
		}
		return out, nil
	}, note, nil
}

// reload loads a reviewed file again under the commit's locks and refuses
// when it no longer holds what the user reviewed.
func reload(load loader, was *editSource) (*editSource, error) {
	src, err := load(was.shown, !was.exists)
	if err != nil {
		return nil, err
	}
	if src.exists != was.exists || !bytes.Equal(src.raw, was.raw) {
		return nil, toolbridge.Fail(toolbridge.CodeWriteConflict, "%s changed while the change was under review, so nothing was applied (the change was planned on its earlier text); read it again and redo the change", was.shown)
	}
	return src, nil
}

// reviewFileOf splits a planned change into hunks.
func reviewFileOf(ch *fileChange) *reviewedFile {
	f := &reviewedFile{ch: ch}
	text := !editUndecodable(ch.src.raw) || !ch.src.exists
	if ch.delete || ch.dst != nil || ch.created || !text || editUndecodable(ch.plan.New) {
		f.hunks = []reviewHunk{{whole: true}}
		return f
	}
	f.old, f.new = slices.Collect(strings.Lines(ch.plan.OldText)), slices.Collect(strings.Lines(ch.plan.NewText))
	edits.LineDiff(f.old, f.new, func(a0, a1, b0, b1 int) {
		f.hunks = append(f.hunks, reviewHunk{a0: a0, a1: a1, b0: b0, b1: b1})
	})
	if len(f.hunks) == 0 { // a change of line endings or encoding only
		f.hunks = []reviewHunk{{whole: true}}
	}
	return f
}

// wire is the file as the editor is shown it.
func (f *reviewedFile) wire() toolbridge.ReviewFile {
	ch := f.ch
	rf := toolbridge.ReviewFile{Path: ch.src.t.Abs}
	if !ch.created {
		rf.Before = editDecodedText(ch.src.raw)
	}
	if !ch.delete {
		rf.After = ch.plan.NewText
	}
	for _, h := range f.hunks {
		rf.Hunks = append(rf.Hunks, toolbridge.ReviewHunk{ID: h.id, Header: f.header(h), Diff: f.diff(h)})
	}
	return rf
}

// header is a hunk's "@@" line.
func (f *reviewedFile) header(h reviewHunk) string {
	ch := f.ch
	switch {
	case !h.whole:
		return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.a0+1, h.a1-h.a0, h.b0+1, h.b1-h.b0)
	case ch.delete:
		return "@@ delete " + ch.src.displayPath() + " @@"
	case ch.dst != nil:
		return "@@ move " + ch.src.displayPath() + " to " + ch.dst.displayPath() + " @@"
	case ch.created:
		return "@@ create " + ch.src.displayPath() + " @@"
	}
	return "@@ rewrite " + ch.src.displayPath() + " @@"
}

// diff is a hunk's lines with a little context.
func (f *reviewedFile) diff(h reviewHunk) string {
	if h.whole {
		d, _ := edits.UnifiedDiff(f.ch.src.displayPath(), f.ch.src.displayPath(), f.ch.plan.OldText, f.ch.plan.NewText)
		return shortDiff(d)
	}
	var b strings.Builder
	line := func(prefix, s string) {
		b.WriteString(prefix + strings.TrimSuffix(s, "\n") + "\n")
	}
	for _, s := range f.old[max(0, h.a0-reviewContext):h.a0] {
		line(" ", s)
	}
	for _, s := range f.old[h.a0:h.a1] {
		line("-", s)
	}
	for _, s := range f.new[h.b0:h.b1] {
		line("+", s)
	}
	for _, s := range f.old[h.a1:min(len(f.old), h.a1+reviewContext)] {
		line(" ", s)
	}
	return b.String()
}

// accepted is the change with only the accepted hunks applied, and false
// when none of them was.
func (f *reviewedFile) accepted(ids map[string]bool) (edits.Change, bool) {
	var take []reviewHunk
	for _, h := range f.hunks {
		if ids == nil || ids[h.id] {
			take = append(take, h)
		}
	}
	switch {
	case len(take) == 0:
		return edits.Change{}, false
	case len(take) == len(f.hunks):
		return f.ch.plan, true
	}
	var out []string
	pos := 0
	for _, h := range f.hunks {
		out = append(out, f.old[pos:h.a0]...)
		if slices.Contains(take, h) {
			out = append(out, f.new[h.b0:h.b1]...)
		} else {
			out = append(out, f.old[h.a0:h.a1]...)
		}
		pos = h.a1
	}
	out = append(out, f.old[pos:]...)
	planned := f.ch.plan
	planned.Applied = edits.Applied{Text: planned.Applied.Text} // the full plan's replacements and lines are not what was applied
	planned.NewText = strings.Join(out, "")
	planned.New = edits.Encode(planned.Format, planned.OldText, planned.NewText)
	return planned, true
}

// askReview shows the files' hunks and returns the accepted hunk ids (nil:
// all) and the note for the result, or the failure that tells the model the
// change was rejected or not reviewed.
func (c *Committer) askReview(ctx context.Context, files []*reviewedFile) (map[string]bool, string, error) {
	var names []string
	total := 0
	prompt := toolbridge.Prompt{Kind: toolbridge.PromptReview, Timeout: c.reviewTimeout(),
		Options: []toolbridge.PromptOption{{ID: toolbridge.ReviewAccept, Label: "Accept"}, {ID: toolbridge.ReviewReject, Label: "Reject"}}}
	added, removed := 0, 0
	for _, f := range files {
		names = append(names, f.ch.src.displayPath())
		total += len(f.hunks)
		prompt.Files = append(prompt.Files, f.wire())
		_, st := f.ch.diff()
		added, removed = added+st.Added, removed+st.Removed
	}
	what := "the change to"
	if toolbridge.CallTool(ctx) == "changes_revert" {
		what = "the revert of"
	}
	// For a person: the files with their folders and the line counts, no
	// tool names.
	prompt.Title = fmt.Sprintf("Review %s %s (+%d −%d)", what, strings.Join(names, ", "), added, removed)
	prompt.Detail = fmt.Sprintf("%d %s in %d %s. Accept all, reject, or accept some hunks.", total, editPlural(total, "hunk", "hunks"), len(files), editPlural(len(files), "file", "files"))
	if c.prompter == nil {
		return nil, "", toolbridge.Fail(toolbridge.CodeNotConfigured, "edits.review asks for every change to be reviewed, but no one can review changes in this session; nothing was applied — tell the user, who can review in the editor or turn edits.review off")
	}
	ans, err := c.prompter.Prompt(ctx, prompt)
	switch {
	case errors.Is(err, toolbridge.ErrPromptTimeout):
		return nil, "", toolbridge.Fail(toolbridge.CodeApprovalTimeout, "the user did not review the change to %s within %s, so it was not applied; ask the user whether they want it before trying again", strings.Join(names, ", "), c.reviewTimeout())
	case errors.Is(err, toolbridge.ErrCannotPrompt) || errors.Is(err, toolbridge.ErrNoOneToAsk):
		return nil, "", toolbridge.Fail(toolbridge.CodeNotConfigured, "edits.review asks for every change to be reviewed, but no one can review changes in this session; nothing was applied — tell the user, who can review in the editor or turn edits.review off")
	case err != nil && ctx.Err() != nil:
		return nil, "", toolbridge.Fail(toolbridge.CodeCanceled, "the call was canceled during the review; nothing was applied")
	case err != nil:
		return nil, "", fmt.Errorf("review: %w", err)
	}
	reason := ""
	if t := strings.TrimSpace(ans.Text); t != "" {
		reason = " (" + excerpt.Quote(t) + ")"
	}
	if ans.Canceled || ans.OptionID != toolbridge.ReviewAccept {
		return nil, "", toolbridge.Fail(toolbridge.CodeDenied, "the user rejected the change to %s%s; nothing was applied — do not retry the same change; ask the user what they want, or try another approach", strings.Join(names, ", "), reason)
	}
	if ans.Hunks == nil {
		return nil, "The user reviewed the change and accepted it.", nil
	}
	ids := map[string]bool{}
	for _, id := range ans.Hunks {
		ids[id] = true
	}
	var parts []string
	anyAccepted := false
	for _, f := range files {
		var yes, no []int
		for i, h := range f.hunks {
			if ids[h.id] {
				yes = append(yes, i+1)
			} else {
				no = append(no, i+1)
			}
		}
		anyAccepted = anyAccepted || len(yes) > 0
		name := f.ch.src.displayPath()
		switch {
		case len(no) == 0:
			parts = append(parts, fmt.Sprintf("applied all %d %s in %s", len(yes), editPlural(len(yes), "hunk", "hunks"), name))
		case len(yes) == 0:
			parts = append(parts, fmt.Sprintf("left %s untouched (the user rejected its %s %s)", name, editPlural(len(no), "hunk", "hunks"), editJoinInts(no)))
		default:
			parts = append(parts, fmt.Sprintf("applied %s %s of %d in %s; the user rejected %s %s", editPlural(len(yes), "hunk", "hunks"), editJoinInts(yes), len(f.hunks), name, editPlural(len(no), "hunk", "hunks"), editJoinInts(no)))
		}
	}
	if !anyAccepted {
		return nil, "", toolbridge.Fail(toolbridge.CodeDenied, "the user rejected every hunk of the change to %s%s; nothing was applied — do not retry the same change; ask the user what they want, or try another approach", strings.Join(names, ", "), reason)
	}
	return ids, "The user reviewed the change: " + strings.Join(parts, "; ") + reason + ". The diff shows what was applied.", nil
}

// reviewTimeout is how long a review waits: edits.reviewTimeoutMs.
func (c *Committer) reviewTimeout() time.Duration { return c.settings().ReviewTimeout() }

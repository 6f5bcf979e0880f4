package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// After an edit, with an editor that offers its diagnostics
// (toolbridge.Language) and edits.problemsWaitMs above 0, the result tells
// the model the problems the change introduced in the files it changed:
// the editor's diagnostics of those files are read before the commit, then
// polled after it until two readings agree (the language server has
// caught up) or the wait ends; only problems that were not there before
// are reported, errors first.

// Polling of the diagnostics after a change.
const (
	problemsPoll        = 250 * time.Millisecond
	problemsShown       = 10
	problemsBaselineMax = 2 * time.Second
)

// problemKey identifies a problem across an edit that moved its line.
func problemKey(d toolbridge.Diagnostic) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", d.Path, d.Severity, d.Message, d.Source, d.Code)
}

// problemsBefore reads the changed files' diagnostics before a commit; ok
// false when problems are not reported for this call.
func (c *Committer) problemsBefore(ctx context.Context, paths []string) (before []toolbridge.Diagnostic, ok bool) {
	if c.language == nil || c.settings().ProblemsWait() <= 0 || len(paths) == 0 {
		return nil, false
	}
	bctx, cancel := context.WithTimeout(ctx, min(problemsBaselineMax, c.settings().ProblemsWait()))
	defer cancel()
	before, err := c.language.Diagnostics(bctx, paths)
	if err != nil {
		c.log.Debug("diagnostics before an edit not read", "err", err)
		return nil, false
	}
	return before, true
}

// problemsAfter waits for the diagnostics of paths to settle and returns
// the note naming what the change introduced.
func (c *Committer) problemsAfter(ctx context.Context, paths []string, before []toolbridge.Diagnostic) string {
	wait := c.settings().ProblemsWait()
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var last []toolbridge.Diagnostic
	settled, answered := false, false
	for reads := 0; ; reads++ {
		select {
		case <-wctx.Done():
		case <-time.After(problemsPoll):
		}
		if wctx.Err() != nil {
			break
		}
		cur, err := c.language.Diagnostics(wctx, paths)
		if err != nil {
			break
		}
		answered = true
		same := func(a, b toolbridge.Diagnostic) bool { return problemKey(a) == problemKey(b) && a.Start == b.Start }
		// Two equal readings mean the language server caught up — unless they
		// are still the readings from before the change, which may be stale.
		if reads > 0 && slices.EqualFunc(cur, last, same) && !slices.EqualFunc(cur, before, same) {
			last, settled = cur, true
			break
		}
		last = cur
	}
	switch {
	case ctx.Err() != nil:
		return ""
	case !answered:
		return fmt.Sprintf("(The editor reported no diagnostics within %s; problems are not checked.)", wait)
	case !settled && slices.EqualFunc(last, before, func(a, b toolbridge.Diagnostic) bool { return problemKey(a) == problemKey(b) }):
		return fmt.Sprintf("No new problems in the changed files (the editor's diagnostics did not change within %s; they may not reflect the change yet).", wait)
	}
	seen := map[string]int{}
	for _, d := range before {
		seen[problemKey(d)]++
	}
	var added []toolbridge.Diagnostic
	for _, d := range last {
		if k := problemKey(d); seen[k] > 0 {
			seen[k]--
		} else {
			added = append(added, d)
		}
	}
	if len(added) == 0 {
		return "No new problems in the changed files."
	}
	l := Lang{Workspace: c.ws}
	sortProblems(added)
	var b strings.Builder
	fmt.Fprintf(&b, "The change introduced %d %s:", len(added), editPlural(len(added), "problem", "problems"))
	for i, d := range added {
		if i == problemsShown {
			fmt.Fprintf(&b, "\n  … and %d more (problems lists them)", len(added)-problemsShown)
			break
		}
		b.WriteString("\n  " + l.problemLine(d))
	}
	return b.String()
}

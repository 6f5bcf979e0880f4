package catalog

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// After an edit, with an editor that offers its diagnostics
// (toolbridge.Language) and edits.problemsWaitMs above 0, the result tells
// the model the problems the change introduced in the files it changed:
// the editor's diagnostics of those files are read before the commit, then
// polled after it until they have settled or the wait ends; only problems
// that were not there before are reported, errors first. They have settled
// when a reading stayed the same for problemsQuiet and either the editor
// counted a publication of every changed file's diagnostics since the
// reading before (a language server answered for the new text, even if it
// found nothing) or, from an editor that does not count, the reading
// differs from the one before the change (one that does not differ may
// still be stale, so that case waits out the bound).

// Polling of the diagnostics after a change.
const (
	problemsPoll        = 100 * time.Millisecond
	problemsQuiet       = 250 * time.Millisecond
	problemsShown       = 10
	problemsBaselineMax = 2 * time.Second
)

// problemKey identifies a problem across an edit that moved its line.
func problemKey(d toolbridge.Diagnostic) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", d.Path, d.Severity, d.Message, d.Source, d.Code)
}

// problemsBefore reads the changed files' diagnostics before a commit; ok
// false when problems are not reported for this call.
func (c *Committer) problemsBefore(ctx context.Context, paths []string) (before toolbridge.Problems, ok bool) {
	if c.language == nil || c.settings().ProblemsWait() <= 0 || len(paths) == 0 {
		return toolbridge.Problems{}, false
	}
	bctx, cancel := context.WithTimeout(ctx, min(problemsBaselineMax, c.settings().ProblemsWait()))
	defer cancel()
	before, err := c.language.Diagnostics(bctx, paths)
	if err != nil {
		c.log.Debug("diagnostics before an edit not read", "err", err)
		return toolbridge.Problems{}, false
	}
	return before, true
}

// sameProblems tells whether two readings hold the same problems at the
// same places.
func sameProblems(a, b []toolbridge.Diagnostic) bool {
	return slices.EqualFunc(a, b, func(x, y toolbridge.Diagnostic) bool { return problemKey(x) == problemKey(y) && x.Start == y.Start })
}

// republished tells whether the editor counted a new publication of every
// path's diagnostics in cur since before; counted is false when before did
// not count them all (an editor that does not count, or a file it had not
// diagnosed yet).
func republished(paths []string, before, cur toolbridge.Problems) (counted, fresh bool) {
	counted, fresh = true, true
	for _, p := range paths {
		was, ok := before.Published[p]
		counted = counted && ok
		fresh = fresh && ok && cur.Published[p] > was
	}
	return counted, fresh
}

// problemsAfter waits for the diagnostics of paths to settle and returns
// the note naming what the change introduced.
func (c *Committer) problemsAfter(ctx context.Context, paths []string, before toolbridge.Problems) string {
	wait := c.settings().ProblemsWait()
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var last toolbridge.Problems
	var lastChanged time.Time
	settled, answered := false, false
	for {
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
		if !answered || !sameProblems(cur.Items, last.Items) || !maps.Equal(cur.Published, last.Published) {
			lastChanged = time.Now()
		}
		answered, last = true, cur
		counted, fresh := republished(paths, before, cur)
		if time.Since(lastChanged) >= problemsQuiet && (fresh || !counted && !sameProblems(cur.Items, before.Items)) {
			settled = true
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		return ""
	case !answered:
		return fmt.Sprintf("(The editor reported no diagnostics within %s; problems are not checked.)", wait)
	case !settled && slices.EqualFunc(last.Items, before.Items, func(a, b toolbridge.Diagnostic) bool { return problemKey(a) == problemKey(b) }):
		return fmt.Sprintf("No new problems in the changed files (the editor's diagnostics did not change within %s; they may not reflect the change yet).", wait)
	}
	seen := map[string]int{}
	for _, d := range before.Items {
		seen[problemKey(d)]++
	}
	var added []toolbridge.Diagnostic
	for _, d := range last.Items {
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

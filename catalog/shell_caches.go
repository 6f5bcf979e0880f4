package catalog

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/settings"
)

// cacheNotes are the lines a task's result carries about what changed in
// the toolchains' caches while it ran (sandbox.WatchCaches). What builds
// do all the time — new entries, entries the toolchain rewrites itself,
// removals, which cost a rebuild at most — is one short line; an entry
// that was there and was rewritten gets a line that names it and says why
// it matters, since a build outside the sandbox trusts it.
func cacheNotes(r sandbox.CacheReport) []string {
	var routine, rewritten []string
	for _, c := range r.Caches {
		var what []string
		for _, n := range []struct {
			count int
			word  string
		}{{c.Added, "new"}, {c.Updated, "updated"}, {c.Removed, "removed"}} {
			if n.count > 0 {
				what = append(what, fmt.Sprintf("%d %s", n.count, n.word))
			}
		}
		if len(what) > 0 {
			routine = append(routine, c.Root.Why+" "+strings.Join(what, ", "))
		}
		if c.Rewritten == 0 {
			continue
		}
		var paths []string
		for _, e := range c.Examples {
			paths = append(paths, filepath.Join(c.Root.Path, filepath.FromSlash(e)))
		}
		if c.Rewritten > len(paths) {
			paths = append(paths, "…")
		}
		rewritten = append(rewritten, fmt.Sprintf("the %s: %d %s (%s)", c.Root.Why, c.Rewritten, editPlural(c.Rewritten, "entry", "entries"), strings.Join(paths, ", ")))
	}
	var out []string
	if len(rewritten) > 0 {
		out = append(out, "[while the task ran, entries already in toolchain caches outside the workspace were rewritten — "+strings.Join(rewritten, "; ")+". Builds outside the sandbox trust these entries and changes_revert does not restore them; if the task was not meant to change them, tell the user]")
	}
	if len(routine) > 0 {
		out = append(out, "[caches while the task ran: "+strings.Join(routine, "; ")+"]")
	}
	if r.Incomplete != "" {
		out = append(out, "[what changed in the caches may be incomplete: "+r.Incomplete+"]")
	}
	return out
}

// WarmCacheWatch sets up, in the background, the watch on the toolchains'
// caches that the first confined task of the process would otherwise wait
// for (up to a second on large caches). Long-lived front ends call it when
// a session starts; a one-shot call does not, since it may never run a
// task.
func WarmCacheWatch(cfg settings.Settings) {
	p, err := sandbox.Plan(sandbox.Options{Mode: cfg.Shell.Sandbox, Network: cfg.Shell.Network, DryRun: true})
	if err != nil || len(p.Caches()) == 0 {
		return
	}
	// In a goroutine of its own, the walk included: `go w.Close()` would
	// evaluate WatchCaches here, holding the session's start.
	go func() { sandbox.WatchCaches(p.Caches()).Close() }()
}

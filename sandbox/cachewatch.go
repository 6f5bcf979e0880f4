package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// A task under workspace-write may write the toolchains' caches (a build
// needs them), and a build the user runs later, outside the sandbox, reads
// what it left there. The journal keeps none of it, so the caches are
// watched instead: WatchCaches returns a CacheMark before a task starts,
// and the mark's Changes, once it has exited, say what was added,
// rewritten or removed in each cache while it ran. Entries a toolchain
// adds or removes are the normal case; one rewritten where the toolchain
// would not rewrite it is what a later build could be misled by.
//
// One watch serves the whole process, set up on first use and kept (on
// Linux with inotify: one watch per folder, the names in each folder kept
// as hashes so that a rename over an existing entry is told from a new
// one). The kernel does not say which process made a change, so Changes
// also holds what other programs did to the caches in the same time.

// CacheChanges is what changed in one cache while a mark was open.
type CacheChanges struct {
	Root Root
	// Added counts the entries that appeared; Removed those that existed
	// and went away; Rewritten those that existed and were written to, or
	// replaced by a rename, where the toolchain does not itself rewrite
	// them (a build that reads one may be misled); Updated those it does
	// rewrite in normal use, or checks when it reads them. An entry added
	// and removed in the time is in none.
	Added, Removed, Rewritten, Updated int
	// Examples are up to three of the Rewritten entries, relative to
	// Root.Path, with "/" separators.
	Examples []string
}

// rewrittenInUse reports whether the toolchain of cache rewrites the entry
// at rel itself in normal use, or checks it when it reads it: Go's build
// cache rewrites its action entries ("…-a", which `go test -count=1`
// does every run) and its bookkeeping files at the top, though not its
// outputs ("…-d", which it trusts by name); npm checks every entry of its
// cache against the hash it recorded.
func rewrittenInUse(cache Root, rel string) bool {
	switch cache.Why {
	case goBuildCache:
		return strings.HasSuffix(rel, "-a") || !strings.Contains(rel, "/")
	case npmCache:
		return true
	}
	return false
}

// CacheReport is what Changes returns.
type CacheReport struct {
	// Caches are the caches in which anything changed, in the order the
	// mark named them.
	Caches []CacheChanges
	// Incomplete, when not empty, says why changes may be missing: a
	// cache that could not be watched, or more changes than the kernel
	// kept.
	Incomplete string
}

// Entry kinds, as a mark folds a path's events.
type entryKind uint8

const (
	entryAdded entryKind = iota + 1
	entryRewritten
	entryRemoved
)

// maxMarkPaths bounds the paths one mark keeps apart; past it the mark
// only counts (a task that runs for days under a busy cache).
const maxMarkPaths = 50_000

// markState is the part of a mark the watch updates.
type markState struct {
	mu     sync.Mutex
	roots  []Root
	paths  map[markKey]entryKind
	counts []CacheChanges // per root, the paths past maxMarkPaths
	lost   string         // why changes may be missing
}

// markKey is a path in a mark: the index of its cache in the mark's roots
// and the path relative to it, with "/" separators.
type markKey struct {
	root int
	rel  string
}

func newMarkState(roots []Root) *markState {
	return &markState{roots: slices.Clone(roots), paths: map[markKey]entryKind{}, counts: make([]CacheChanges, len(roots))}
}

// keyOf is path's key: in the innermost of m's roots that holds it; ok is
// false when none does.
func (m *markState) keyOf(path string) (k markKey, ok bool) {
	k.root = -1
	for i, r := range m.roots {
		if rest, in := strings.CutPrefix(path, r.Path+string(filepath.Separator)); in {
			if k.root < 0 || len(r.Path) > len(m.roots[k.root].Path) {
				k = markKey{i, filepath.ToSlash(rest)}
			}
		}
	}
	return k, k.root >= 0
}

// note folds one event on path into the mark: what the path was before the
// mark is what the first event says; later events only move it on.
func (m *markState) note(path string, kind entryKind) {
	key, ok := m.keyOf(path)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, seen := m.paths[key]
	if !seen && len(m.paths) >= maxMarkPaths {
		c := &m.counts[key.root]
		switch {
		case kind == entryAdded:
			c.Added++
		case kind == entryRemoved:
			c.Removed++
		case rewrittenInUse(m.roots[key.root], key.rel):
			c.Updated++
		default:
			c.Rewritten++
		}
		return
	}
	switch {
	case !seen:
		m.paths[key] = kind
	case old == entryAdded && kind == entryRemoved:
		delete(m.paths, key) // a temporary file
	case old == entryAdded:
		// still new, whatever was written to it
	case old == entryRemoved && kind != entryRemoved:
		m.paths[key] = entryRewritten // removed and put back: replaced
	case old == entryRewritten && kind == entryRemoved:
		m.paths[key] = entryRemoved
	}
}

// lose records why changes may be missing.
func (m *markState) lose(why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lost == "" {
		m.lost = why
	}
}

// report sums the mark up.
func (m *markState) report() CacheReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	per := make([]CacheChanges, len(m.roots))
	for i, r := range m.roots {
		per[i] = m.counts[i]
		per[i].Root = r
	}
	keys := make([]markKey, 0, len(m.paths))
	for k := range m.paths {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b markKey) int { return strings.Compare(a.rel, b.rel) })
	for _, k := range keys {
		c := &per[k.root]
		switch {
		case m.paths[k] == entryAdded:
			c.Added++
		case m.paths[k] == entryRemoved:
			c.Removed++
		case rewrittenInUse(c.Root, k.rel):
			c.Updated++
		default:
			c.Rewritten++
			if len(c.Examples) < 3 {
				c.Examples = append(c.Examples, k.rel)
			}
		}
	}
	out := CacheReport{Incomplete: m.lost}
	for _, c := range per {
		if c.Added+c.Removed+c.Rewritten+c.Updated > 0 {
			out.Caches = append(out.Caches, c)
		}
	}
	return out
}

// CacheMark is a watch on caches from the moment it was made; nil watches
// nothing (no caches, or a system without the means).
type CacheMark struct {
	state   *markState
	release func() // brings the state up to date and stops updating it
	once    sync.Once
}

// WatchCaches starts a mark on roots (Policy.Caches). The first mark of the
// process sets the watch up, which takes a moment on large caches (every
// folder in them is read once).
func WatchCaches(roots []Root) *CacheMark {
	if len(roots) == 0 {
		return nil
	}
	st := newMarkState(roots)
	release := watchCaches(st)
	if release == nil {
		return nil
	}
	return &CacheMark{state: st, release: release}
}

// Changes ends the mark and says what changed in its caches since it was
// made. Calling it again returns the same.
func (c *CacheMark) Changes() CacheReport {
	if c == nil {
		return CacheReport{}
	}
	c.once.Do(c.release)
	return c.state.report()
}

// Close ends the mark without a report (the task did not start).
func (c *CacheMark) Close() {
	if c != nil {
		c.once.Do(c.release)
	}
}

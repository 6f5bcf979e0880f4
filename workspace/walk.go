package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// WalkOptions tune Walk.
type WalkOptions struct {
	// IncludeIgnored also reports entries that ignore files exclude. ".git"
	// is skipped even then.
	IncludeIgnored bool
	// MaxDepth limits how deep Walk descends: 0 means no limit, 1 reports
	// only the entries of the start directory, 2 also their children, and so
	// on.
	MaxDepth int
}

// Walk calls fn for every entry below the directory start (a slash path
// relative to fsys, "." for the root), depth first, in lexical order within
// each folder, with rel the entry's slash path relative to the root (not to
// start). fn is not called for start itself.
//
// Walk skips ".git" everywhere and, unless opts.IncludeIgnored is set, every
// entry ig says is ignored (a nil ig ignores nothing else). It never follows
// symlinks: they are reported as entries (d.Type() has fs.ModeSymlink) and
// never descended into, so a symlink loop or a link out of the root is
// harmless. A directory that cannot be read is reported but not descended
// into. fn may return fs.SkipDir (on a directory: skip its contents; on a
// file: skip the rest of its folder) or fs.SkipAll (stop, Walk returns nil);
// any other error stops the walk and is returned. Walk checks ctx before each
// entry and returns ctx.Err() once it is done.
//
// Walk is sequential; fn runs on the caller's goroutine.
func Walk(ctx context.Context, fsys *os.Root, ig *Ignorer, start string, opts WalkOptions, fn func(rel string, d fs.DirEntry) error) error {
	start = cleanRel(start)
	dir := fsys
	if start != "." {
		sub, err := fsys.OpenRoot(start)
		if err != nil {
			return err
		}
		defer sub.Close()
		dir = sub
	}
	if ig == nil {
		ig = NewIgnorer(nil)
	}
	w := &walker{ctx: ctx, ig: ig, opts: opts, fn: fn}
	err := w.dir(dir, start, 1, true)
	if errors.Is(err, fs.SkipAll) || errors.Is(err, fs.SkipDir) {
		return nil
	}
	return err
}

type walker struct {
	ctx  context.Context
	ig   *Ignorer
	opts WalkOptions
	fn   func(rel string, d fs.DirEntry) error
}

// dir reports the entries of one directory and descends into its
// subdirectories. top says whether a read error is the caller's problem (the
// start directory) or is skipped (a subdirectory).
func (w *walker) dir(d *os.Root, rel string, depth int, top bool) error {
	entries, err := readDirSorted(d)
	if err != nil {
		if top {
			return err
		}
		return nil
	}
	var rules *DirRules
	if !w.opts.IncludeIgnored {
		rules = w.ig.Preload(rel, readEntryFile(d, entries, gitignoreName), readEntryFile(d, entries, dotIgnoreName))
	}
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if name == ".git" {
			continue
		}
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		isDir := e.IsDir()
		if rules != nil && rules.Ignored(child, isDir) {
			continue
		}
		if err := w.fn(child, e); err != nil {
			if errors.Is(err, fs.SkipDir) {
				if isDir {
					continue
				}
				return nil
			}
			return err
		}
		if !isDir || (w.opts.MaxDepth > 0 && depth >= w.opts.MaxDepth) {
			continue
		}
		sub, err := d.OpenRoot(name)
		if err != nil {
			continue
		}
		err = w.dir(sub, child, depth+1, false)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// readDirSorted lists the directory d in lexical order. Symlinks are reported
// as they are, not followed.
func readDirSorted(d *os.Root) ([]fs.DirEntry, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// readEntryFile reads the regular file name of directory d when entries
// lists it, and returns nil otherwise.
func readEntryFile(d *os.Root, entries []fs.DirEntry, name string) []byte {
	i, found := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
	if !found || !entries[i].Type().IsRegular() {
		return nil
	}
	b, err := d.ReadFile(name)
	if err != nil {
		return nil
	}
	return b
}

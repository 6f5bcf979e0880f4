package catalog

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The journal leaves .git alone, so what a task does to a repository's
// own state is compared apart and said in its result: changes_revert does
// not take back a commit, a moved branch or a rewritten hook. A few files
// in .git are code that git runs later, as the user and outside any
// sandbox: the hooks, and the commands .git/config and
// .git/info/attributes name (core.fsmonitor, core.hooksPath, filters, diff
// and merge drivers). A task that changes them is named in a line of its
// own, whether the sandbox kept them read-only (it then cannot) or not
// (shell.sandbox off, shell.gitWritable).

// fileStamp is what tells a file changed without reading it.
type fileStamp struct {
	size  int64
	mtime time.Time
	mode  os.FileMode
}

// gitSurface stamps every file in each root's .git folder (a .git file,
// as in a linked worktree, is skipped). Objects are stamped by their
// fan-out folders (objects/ab, objects/pack), whose times change when an
// object comes or goes, rather than one by one: a repository can hold
// hundreds of thousands. The result is nil when no
// root has a .git folder.
func gitSurface(roots []string) map[string]fileStamp {
	var out map[string]fileStamp
	for _, root := range roots {
		git := filepath.Join(root, ".git")
		if fi, err := os.Lstat(git); err != nil || !fi.IsDir() {
			continue
		}
		if out == nil {
			out = map[string]fileStamp{}
		}
		_ = filepath.WalkDir(git, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == git {
				return nil // a file that went away while walking is simply not stamped
			}
			// objects/ab, and the same in submodules' (modules/x/objects)
			// and Git LFS's (lfs/objects) stores.
			fanOut := d.IsDir() && filepath.Base(filepath.Dir(p)) == "objects"
			if d.IsDir() && !fanOut {
				return nil
			}
			if fi, err := d.Info(); err == nil {
				out[p] = fileStamp{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
			}
			if fanOut {
				return fs.SkipDir
			}
			return nil
		})
	}
	return out
}

// gitChange is what a task did to one repository's .git folder.
type gitChange struct {
	code  []string // files git runs code from: ".git/hooks/pre-commit (created)"
	refs  []string // branches, tags and HEAD: "refs/heads/main"
	other []string // the groups of the other files changed: "objects", "logs"
	more  int      // how many other files changed
}

// gitChanges compares two stamps of gitSurface. Each list is sorted.
func gitChanges(before, after map[string]fileStamp) gitChange {
	var c gitChange
	groups := map[string]bool{}
	note := func(p, how string) {
		rel := relGit(p)
		inGit := strings.TrimPrefix(rel, ".git/")
		switch {
		case gitRunsCode(inGit):
			c.code = append(c.code, rel+how)
		case isRef(inGit):
			c.refs = append(c.refs, inGit+how)
		default:
			c.more++
			group, _, _ := strings.Cut(inGit, "/")
			groups[group] = true
		}
	}
	for p, st := range after {
		old, ok := before[p]
		switch {
		case !ok:
			note(p, " (created)")
		case old != st:
			note(p, "")
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			note(p, " (deleted)")
		}
	}
	for g := range groups {
		c.other = append(c.other, g)
	}
	for _, s := range [][]string{c.code, c.refs, c.other} {
		slices.Sort(s)
	}
	return c
}

// gitRunsCode reports whether git runs code from, or reads commands to
// run in, the file at rel in a .git folder.
func gitRunsCode(rel string) bool {
	if name, ok := strings.CutPrefix(rel, "hooks/"); ok {
		return !strings.HasSuffix(name, ".sample")
	}
	return rel == "config" || rel == "info/attributes"
}

// isRef reports whether the file at rel in a .git folder names a commit:
// HEAD and the other heads git keeps at the top, a branch, a tag, packed
// refs.
func isRef(rel string) bool {
	return strings.HasPrefix(rel, "refs/") || rel == "packed-refs" || (!strings.Contains(rel, "/") && strings.HasSuffix(rel, "HEAD"))
}

// notes are the lines a task's result carries about c ("" when nothing
// changed).
func (c gitChange) notes() []string {
	var out []string
	if len(c.code) > 0 {
		out = append(out, "[the task changed "+strings.Join(c.code, ", ")+": git runs the commands these name the next time anyone runs git here, outside any sandbox; tell the user, and undo what the task was not meant to do]")
	}
	var what []string
	if len(c.refs) > 0 {
		what = append(what, strings.Join(firstOf(c.refs, 5), ", "))
	}
	if c.more > 0 {
		what = append(what, fmt.Sprintf("%d %s under .git (%s)", c.more, editPlural(c.more, "file", "files"), strings.Join(c.other, ", ")))
	}
	if len(what) > 0 {
		out = append(out, "[the task changed the repository's own state, which changes_revert does not take back: "+strings.Join(what, "; ")+"]")
	}
	return out
}

// firstOf is s cut to n items, the rest counted: "a, b, c and 4 more".
func firstOf(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clip(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}

// relGit is p from its .git folder on: ".git/hooks/pre-commit".
func relGit(p string) string {
	p = filepath.ToSlash(p)
	if i := strings.LastIndex(p, "/.git/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

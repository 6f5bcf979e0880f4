package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The journal leaves .git alone, but a few files in it are code that git
// runs later, as the user and outside any sandbox: the hooks, and the
// commands .git/config and .git/info/attributes name (core.fsmonitor,
// core.hooksPath, filters, diff and merge drivers). A task that changes
// them is named in its result, whether the sandbox kept them read-only
// (it then cannot) or not (shell.sandbox off, shell.gitWritable).

// fileStamp is what tells a file changed without reading it.
type fileStamp struct {
	size  int64
	mtime time.Time
	mode  os.FileMode
}

// gitSurface stamps the files git runs code from in each root's .git
// folder (a .git file, as in a linked worktree, is skipped). The result
// is nil when no root has a .git folder, and empty but not nil when they
// hold none of those files yet.
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
		paths := []string{filepath.Join(git, "config"), filepath.Join(git, "info", "attributes")}
		if ents, err := os.ReadDir(filepath.Join(git, "hooks")); err == nil {
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".sample") {
					paths = append(paths, filepath.Join(git, "hooks", e.Name()))
				}
			}
		}
		for _, p := range paths {
			if fi, err := os.Lstat(p); err == nil {
				out[p] = fileStamp{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
			}
		}
	}
	return out
}

// gitChanges names the files of after that are new, changed or gone since
// before, relative to their workspace root (".git/hooks/pre-commit
// (created)"), sorted. The file name is relative to its .git folder.
func gitChanges(before, after map[string]fileStamp) []string {
	var out []string
	for p, st := range after {
		old, ok := before[p]
		switch {
		case !ok:
			out = append(out, relGit(p)+" (created)")
		case old != st:
			out = append(out, relGit(p))
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, relGit(p)+" (deleted)")
		}
	}
	slices.Sort(out)
	return out
}

// relGit is p from its .git folder on: ".git/hooks/pre-commit".
func relGit(p string) string {
	p = filepath.ToSlash(p)
	if i := strings.LastIndex(p, "/.git/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

package workspace

import (
	"bytes"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Ignore file names. Rules in .ignore take precedence over rules in
// .gitignore at any level, which in turn take precedence over
// .git/info/exclude; within one kind, a deeper file wins over a shallower one
// and a later line over an earlier one. This is the order ripgrep uses.
const (
	gitignoreName = ".gitignore"
	dotIgnoreName = ".ignore"
	excludePath   = ".git/info/exclude"
)

// Ignorer decides whether a path below a workspace root is ignored by the
// developer's ignore files: .gitignore files at any depth (negations, folder
// patterns ending in "/", anchored patterns, "**"), .ignore files, and the
// root's .git/info/exclude. Rules are read through the root's os.Root, lazily,
// once per directory, and cached for the Ignorer's lifetime: create a new
// Ignorer per operation to see edits to ignore files.
//
// An Ignorer is safe for concurrent use. It does not read the user's global
// excludes file (core.excludesFile) and treats every .gitignore as in force,
// whether or not the folder is a git repository.
type Ignorer struct {
	fsys *os.Root

	excludeOnce sync.Once
	exclude     []ignoreRule

	mu sync.RWMutex
	// dirs caches the rules in force inside each loaded directory, keyed by
	// slash path relative to the root ("." for the root).
	dirs map[string]*DirRules
}

// NewIgnorer returns an Ignorer that reads ignore files through fsys. A nil
// fsys gives an Ignorer that ignores only ".git".
func NewIgnorer(fsys *os.Root) *Ignorer {
	return &Ignorer{fsys: fsys, dirs: make(map[string]*DirRules)}
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// ignored; isDir says whether it names a directory, for folder patterns. A
// path inside an ignored directory is ignored too. "." is never ignored, and
// any path with a ".git" component always is.
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	rel = cleanRel(rel)
	if rel == "." || rel == "" {
		return false
	}
	// Check every ancestor first: nothing can be re-included below an
	// ignored directory.
	parent := "."
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		dir := rel[:i]
		if ig.Rules(parent).Ignored(dir, true) {
			return true
		}
		parent = dir
	}
	return ig.Rules(parent).Ignored(rel, isDir)
}

// Rules returns the rules in force for the entries of directory dir (slash
// path relative to the root, "." for the root), loading the ignore files of
// dir and its ancestors that are not cached yet.
func (ig *Ignorer) Rules(dir string) *DirRules {
	dir = cleanRel(dir)
	if dir == "" {
		dir = "."
	}
	ig.mu.RLock()
	r, ok := ig.dirs[dir]
	ig.mu.RUnlock()
	if ok {
		return r
	}
	var gi, ign []byte
	if ig.fsys != nil {
		gi = readIgnoreFile(ig.fsys, path.Join(dir, gitignoreName))
		ign = readIgnoreFile(ig.fsys, path.Join(dir, dotIgnoreName))
	}
	return ig.Preload(dir, gi, ign)
}

// Preload records the contents of dir's .gitignore and .ignore (nil when a
// file is absent) as a walker that has just listed dir saw them, so that
// Rules(dir) needs no further reads, and returns the rules in force in dir.
// Rules already cached for dir are kept.
func (ig *Ignorer) Preload(dir string, gitignore, dotIgnore []byte) *DirRules {
	dir = cleanRel(dir)
	if dir == "" {
		dir = "."
	}
	r := &DirRules{base: dir, git: parseIgnore(gitignore), ignore: parseIgnore(dotIgnore)}
	if dir == "." {
		r.exclude = ig.excludeRules()
		r.empty = len(r.git) == 0 && len(r.ignore) == 0 && len(r.exclude) == 0
	} else {
		r.parent = ig.Rules(path.Dir(dir))
		r.exclude = r.parent.exclude
		r.empty = r.parent.empty && len(r.git) == 0 && len(r.ignore) == 0
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if old, ok := ig.dirs[dir]; ok {
		return old
	}
	ig.dirs[dir] = r
	return r
}

// Forget drops the cached rules of dir and of every directory below it, so
// that the next Rules or Preload reads their ignore files again. A
// long-lived Ignorer (the file index's) calls it when an ignore file
// changes or a folder is replaced. It does not reread .git/info/exclude.
func (ig *Ignorer) Forget(dir string) {
	dir = cleanRel(dir)
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if dir == "." {
		clear(ig.dirs)
		return
	}
	for d := range ig.dirs {
		if d == dir || strings.HasPrefix(d, dir+"/") {
			delete(ig.dirs, d)
		}
	}
}

func (ig *Ignorer) excludeRules() []ignoreRule {
	ig.excludeOnce.Do(func() {
		if ig.fsys != nil {
			ig.exclude = parseIgnore(readIgnoreFile(ig.fsys, excludePath))
		}
	})
	return ig.exclude
}

// readIgnoreFile returns the contents of a regular file, or nil when it is
// absent, unreadable, or not a regular file (a symlinked ignore file is not
// followed).
func readIgnoreFile(fsys *os.Root, name string) []byte {
	fi, err := fsys.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := fsys.ReadFile(name)
	if err != nil {
		return nil
	}
	return b
}

// DirRules are the ignore rules in force for the entries of one directory:
// its own ignore files and those of its ancestors up to the root. A DirRules
// is immutable and safe for concurrent use.
type DirRules struct {
	parent  *DirRules
	base    string // directory, relative to the root ("." for the root)
	git     []ignoreRule
	ignore  []ignoreRule
	exclude []ignoreRule
	empty   bool // no rule anywhere in the chain
}

// Ignored reports whether rel, an entry of this DirRules' directory given as
// a slash path relative to the root, is ignored. Unlike Ignorer.Ignored it
// does not check the ancestors of rel: walkers never descend into an ignored
// directory, so they need not. Any ".git" entry is ignored.
func (r *DirRules) Ignored(rel string, isDir bool) bool {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	if name == ".git" {
		return true
	}
	if r == nil || r.empty {
		return false
	}
	for d := r; d != nil; d = d.parent {
		if ignored, ok := matchRules(d.ignore, d.base, rel, name, isDir); ok {
			return ignored
		}
	}
	for d := r; d != nil; d = d.parent {
		if ignored, ok := matchRules(d.git, d.base, rel, name, isDir); ok {
			return ignored
		}
	}
	if ignored, ok := matchRules(r.exclude, ".", rel, name, isDir); ok {
		return ignored
	}
	return false
}

// matchRules applies one file's rules to rel; the last matching rule
// decides. ok is false when no rule matches.
func matchRules(rules []ignoreRule, base, rel, name string, isDir bool) (ignored, ok bool) {
	if len(rules) == 0 {
		return false, false
	}
	sub := rel
	if base != "." {
		if len(rel) <= len(base) || rel[len(base)] != '/' || !strings.HasPrefix(rel, base) {
			return false, false
		}
		sub = rel[len(base)+1:]
	}
	for i := len(rules) - 1; i >= 0; i-- {
		ru := &rules[i]
		if ru.dirOnly && !isDir {
			continue
		}
		target := name
		if ru.anchored {
			target = sub
		}
		switch {
		case ru.literal != "":
			if ru.literal != target {
				continue
			}
		case ru.suffix != "":
			if !strings.HasSuffix(target, ru.suffix) {
				continue
			}
		case !doublestar.MatchUnvalidated(ru.pattern, target):
			continue
		}
		return !ru.negate, true
	}
	return false, false
}

// ignoreRule is one line of an ignore file.
type ignoreRule struct {
	pattern  string // doublestar pattern
	literal  string // the pattern itself when it has no metacharacters
	suffix   string // for "*.ext" on base names: ".ext"
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	anchored bool   // has a slash: matched against the path below the file's folder
}

// parseIgnore parses gitignore syntax. Lines that are blank, comments, or
// not valid patterns are skipped.
func parseIgnore(data []byte) []ignoreRule {
	if len(data) == 0 {
		return nil
	}
	var rules []ignoreRule
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if ru, ok := parseIgnoreLine(string(line)); ok {
			rules = append(rules, ru)
		}
	}
	return rules
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var ru ignoreRule
	if line[0] == '!' {
		ru.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		ru.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if strings.Contains(line, "/") {
		ru.anchored = true
		line = strings.TrimLeft(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	// gitignore has no brace sets: make braces literal for doublestar.
	if strings.ContainsAny(line, "{}") {
		var b strings.Builder
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c == '\\' && i+1 < len(line) {
				b.WriteByte(c)
				b.WriteByte(line[i+1])
				i++
				continue
			}
			if c == '{' || c == '}' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		line = b.String()
	}
	if !doublestar.ValidatePattern(line) {
		return ignoreRule{}, false
	}
	ru.pattern = line
	if !strings.ContainsAny(line, `*?[\`) {
		ru.literal = line
	} else if rest, ok := strings.CutPrefix(line, "*"); ok && !ru.anchored && rest != "" && !strings.ContainsAny(rest, `*?[\`) {
		ru.suffix = rest
	}
	return ru, true
}

// cleanRel normalises a slash path relative to a root: no leading "./" or
// "/", no trailing slash.
func cleanRel(rel string) string {
	if rel == "" || rel == "." {
		return "."
	}
	rel = path.Clean(rel)
	rel = strings.TrimPrefix(rel, "/")
	if rel == "" {
		return "."
	}
	return rel
}

package workspace

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/whale-ls/whale-ls/excerpt"
)

// Kinds of roots. Only KindWorkspace roots accept writes.
const (
	KindWorkspace    = "workspace"     // an editor workspace folder or --root
	KindApproved     = "approved"      // a folder or file listed in read.approvedPaths
	KindSkill        = "skill"         // a discovered skill folder
	KindMainCheckout = "main-checkout" // the main checkout of a linked git worktree
)

// Root is one folder in reach. Path is the folder (or approved file) as it
// was given, cleaned and absolute; Real is the folder FS opens, with symlinks
// resolved. FS is the only handle through which tools touch files inside it.
type Root struct {
	Path string
	Real string
	Kind string
	FS   *os.Root
	// only, when set, limits a root made for an approved single file to that
	// file's base name.
	only string
}

// Target is a resolved path: the root that holds it and the slash-separated
// path relative to that root ("." for the root itself). Abs is the real
// absolute path, for messages and for matching editor documents.
type Target struct {
	Root *Root
	Rel  string
	Abs  string
}

// Access says what a caller intends to do with a path.
type Access int

const (
	// Read allows workspace roots and the read-only roots.
	Read Access = iota
	// Write allows workspace roots only.
	Write
)

// Error codes of PathError; they equal the Envelope codes of the same name.
const (
	CodeInvalidInput         = "invalid_input"
	CodePathEscapesWorkspace = "path_escapes_workspace"
	CodePathNotAllowed       = "path_not_allowed"
)

// PathError explains why a path is out of reach, in a sentence that ends
// with what to do instead.
type PathError struct {
	Code string
	Path string
	Msg  string
}

func (e *PathError) Error() string { return e.Msg }

// Set is the collection of roots of one session. It is safe for concurrent
// use; settings may add or replace the read-only roots at any time.
type Set struct {
	home string

	mu        sync.RWMutex
	workspace []*Root
	readOnly  []*Root
}

// NewSet opens a workspace root for each folder in paths (at least one), and
// the main checkout of each folder that is a linked git worktree.
func NewSet(paths []string) (*Set, error) {
	if len(paths) == 0 {
		return nil, errors.New("no workspace folder given")
	}
	home, _ := os.UserHomeDir()
	s := &Set{home: home}
	for _, p := range paths {
		r, err := openRoot(p, KindWorkspace)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.workspace = append(s.workspace, r)
	}
	for _, r := range s.workspace {
		if main := worktreeMainCheckout(r.Real); main != "" && !s.covers(main) {
			if mr, err := openRoot(main, KindMainCheckout); err == nil {
				s.readOnly = append(s.readOnly, mr)
			}
		}
	}
	return s, nil
}

func openRoot(path string, kind string) (*Root, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve folder %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", path, err)
	}
	only := ""
	dir := real
	if !fi.IsDir() {
		if kind == KindWorkspace {
			return nil, fmt.Errorf("workspace %s is a file, not a folder", path)
		}
		only = filepath.Base(real)
		dir = filepath.Dir(real)
	}
	fsys, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", path, err)
	}
	return &Root{Path: filepath.Clean(abs), Real: dir, Kind: kind, FS: fsys, only: only}, nil
}

// Close releases every root's handle.
func (s *Set) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range append(s.workspace, s.readOnly...) {
		r.FS.Close()
	}
	s.workspace, s.readOnly = nil, nil
}

// Roots returns the workspace roots, first root first.
func (s *Set) Roots() []*Root {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*Root(nil), s.workspace...)
}

// SetReadOnly replaces the approved-path and skill roots with the given
// folders (or files). Paths that do not exist are skipped and returned, so
// the caller can report them. Main-checkout roots are kept.
func (s *Set) SetReadOnly(approved, skills []string) (missing []string) {
	var fresh []*Root
	for _, list := range []struct {
		kind  string
		paths []string
	}{{KindApproved, approved}, {KindSkill, skills}} {
		for _, p := range list.paths {
			p = s.expandHome(p)
			r, err := openRoot(p, list.kind)
			if err != nil {
				missing = append(missing, p)
				continue
			}
			fresh = append(fresh, r)
		}
	}
	s.mu.Lock()
	var keep []*Root
	for _, r := range s.readOnly {
		if r.Kind == KindMainCheckout {
			keep = append(keep, r)
		} else {
			r.FS.Close()
		}
	}
	s.readOnly = append(keep, fresh...)
	s.mu.Unlock()
	return missing
}

func (s *Set) covers(path string) bool {
	for _, r := range s.workspace {
		if within(r.Real, path) {
			return true
		}
	}
	return false
}

func (s *Set) expandHome(p string) string {
	if s.home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(s.home, p[1:])
	}
	return p
}

// Resolve turns a path written by a model into a Target. It accepts paths
// relative to the first workspace root, absolute paths, "~/..." and file://
// URIs. Symlinks are resolved, so the Target names the real file; the os.Root
// behind it still refuses any escape that appears later.
func (s *Set) Resolve(raw string, access Access) (Target, error) {
	abs, perr := s.absolute(raw)
	if perr != nil {
		return Target{}, perr
	}
	s.mu.RLock()
	real := s.realPath(abs)

	defer s.mu.RUnlock()
	candidates := s.workspace
	if access == Read {
		candidates = append(append([]*Root(nil), s.workspace...), s.readOnly...)
	}
	if r := deepest(candidates, real); r != nil {
		rel, _ := filepath.Rel(r.Real, real)
		return Target{Root: r, Rel: filepath.ToSlash(rel), Abs: real}, nil
	}
	return Target{}, s.refuse(raw, access, real)
}

// refuse builds the error for a path outside every allowed root. The
// message names the path by an excerpt.
func (s *Set) refuse(raw string, access Access, real string) error {
	shown := excerpt.Text(raw)
	var viaLink string
	for _, r := range s.workspace {
		if abs, _ := s.absolute(raw); abs != "" && (within(r.Path, abs) || within(r.Real, abs)) {
			viaLink = excerpt.Text(real)
		}
	}
	roots := make([]string, 0, len(s.workspace))
	for _, r := range s.workspace {
		roots = append(roots, r.Path)
	}
	where := strings.Join(roots, ", ")
	if access == Write {
		msg := fmt.Sprintf("%s is outside the workspace (%s); tools may only change files inside it, so pick a path inside the workspace", shown, where)
		if viaLink != "" {
			msg = fmt.Sprintf("%s leads through a symlink to %s, outside the workspace (%s); edit the file inside the workspace instead of the link", shown, viaLink, where)
		}
		return &PathError{Code: CodePathEscapesWorkspace, Path: raw, Msg: msg}
	}
	msg := fmt.Sprintf("%s is outside the workspace (%s) and not under an approved read path; ask the user to add it to the read.approvedPaths setting, or read a file inside the workspace", shown, where)
	if viaLink != "" {
		msg = fmt.Sprintf("%s leads through a symlink to %s, outside the workspace (%s) and not under an approved read path; ask the user to add that folder to read.approvedPaths", shown, viaLink, where)
	}
	return &PathError{Code: CodePathNotAllowed, Path: raw, Msg: msg}
}

// absolute validates raw and makes it absolute and clean.
func (s *Set) absolute(raw string) (string, *PathError) {
	bad := func(why string) *PathError {
		return &PathError{Code: CodeInvalidInput, Path: raw, Msg: fmt.Sprintf("path %s %s; give a path relative to the workspace root or an absolute path", excerpt.Quote(raw), why)}
	}
	p := strings.TrimSpace(raw)
	if p == "" {
		return "", bad("is empty")
	}
	for _, c := range p {
		if c == 0 {
			return "", bad("contains a NUL byte")
		}
		if c < 0x20 && c != '\t' {
			return "", bad("contains a control character")
		}
	}
	if strings.HasPrefix(p, "file:") {
		u, err := url.Parse(p)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return "", bad("is not a local file:// URI")
		}
		p = fromURIPath(u.Path)
	} else if strings.Contains(p, "://") {
		return "", bad("is a URL, not a file path")
	}
	p = s.expandHome(p)
	if !filepath.IsAbs(p) {
		s.mu.RLock()
		base := ""
		if len(s.workspace) > 0 {
			base = s.workspace[0].Path
		}
		s.mu.RUnlock()
		var ok bool
		if p, ok = joinBase(base, p); !ok {
			return "", bad("is relative to the current folder of another drive")
		}
	}
	return filepath.Clean(p), nil
}

// realPath resolves symlinks in abs. When abs lies lexically inside a
// workspace root, only the components below the root are checked (one
// lstat each, through the root); the root's own path is already resolved.
// Otherwise, or when a component below the root is a symlink, it falls back
// to resolving the whole path. The caller holds s.mu.
func (s *Set) realPath(abs string) string {
	for _, r := range s.workspace {
		if !within(r.Real, abs) {
			continue
		}
		rel, _ := filepath.Rel(r.Real, abs)
		if rel == "." {
			return abs
		}
		cur := ""
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			cur = filepath.Join(cur, part)
			fi, err := r.FS.Lstat(cur)
			if err != nil {
				return abs // the rest does not exist: nothing more to resolve
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				return resolveExisting(abs)
			}
		}
		return abs
	}
	return resolveExisting(abs)
}

// resolveExisting resolves symlinks in the longest existing prefix of p and
// appends the part that does not exist yet.
func resolveExisting(p string) string {
	rest := ""
	cur := p
	for {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// deepest returns the root that contains p with the longest real path, so a
// skill folder inside a workspace does not shadow the workspace and nested
// roots pick the innermost.
func deepest(roots []*Root, p string) *Root {
	var best *Root
	for _, r := range roots {
		if r.only != "" && !samePath(p, filepath.Join(r.Real, r.only)) {
			continue
		}
		if !within(r.Real, p) {
			continue
		}
		if best == nil || len(r.Real) > len(best.Real) || (len(r.Real) == len(best.Real) && r.Kind == KindWorkspace) {
			best = r
		}
	}
	return best
}

// within reports whether p is dir or lies below it (both clean and
// absolute), comparing names as the platform does (samePath).
func within(dir, p string) bool {
	if samePath(dir, p) {
		return true
	}
	if strings.HasSuffix(dir, string(filepath.Separator)) { // "/", `C:\`
		return len(p) > len(dir) && samePath(p[:len(dir)], dir)
	}
	return len(p) > len(dir) && p[len(dir)] == filepath.Separator && samePath(p[:len(dir)], dir)
}

package search

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"unsafe"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/workspace"
)

// FilesRequest is one file-name search.
type FilesRequest struct {
	// Pattern is a doublestar glob; several may be separated by commas. A
	// glob without "/" matches base names at any depth ("main.go",
	// "*_test.go"); one with "/" matches the path relative to the root or to
	// Path ("cmd/**/*.go").
	Pattern string
	// Path is the folder to search, relative to the root; "" is the root.
	Path string
	// MaxResults caps the paths Text shows; 0 means DefaultMaxFiles.
	MaxResults int
	// Overlay lists files open in an editor (slash paths relative to the
	// root); those not on disk yet are listed too when they match.
	Overlay map[string][]byte
	// Index, when set, is the file index of the root; a folder it can
	// answer for is listed from it instead of being walked.
	Index *Index
}

// FileList is the outcome of Files: the first matching files in path
// order, up to the request's cap (MaxResults or DefaultMaxFiles), which is
// all that Text shows; Total counts every matching file.
type FileList struct {
	Request FilesRequest
	Paths   []string
	Total   int
}

// Files lists the regular files below req.Path whose names match
// req.Pattern, with the same guarantees as Grep: path order, ignore files
// respected, ".git" and symlinks skipped, prompt return on cancellation.
func Files(ctx context.Context, root *os.Root, ig *workspace.Ignorer, req FilesRequest) (*FileList, error) {
	globs, err := parseGlobs(req.Pattern)
	if err != nil {
		return nil, err
	}
	if globs == nil {
		return nil, &GlobError{Glob: req.Pattern}
	}
	start := cleanPath(req.Path)
	fi, err := root.Lstat(start)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "search", Path: start, Err: ErrSymlink}
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "search", Path: start, Err: ErrNotDir}
	}
	limit := req.MaxResults
	if limit <= 0 {
		limit = DefaultMaxFiles
	}
	var mu sync.Mutex
	var paths []string
	seen := map[string]bool{}
	dirs, indexed := indexListing(req.Index, start, globs)
	sorted, total := indexed, 0
	if indexed {
		paths, total = listedPaths(dirs, limit)
	} else if _, err = parallelWalk(ctx, walkConfig{
		root:  root,
		ig:    ig,
		start: start,
		wantFile: func(rel, name string) bool {
			return globs.match(rel, subPath(start, rel), name)
		},
		visit: func(_ int, _ dirHandle, rel, _ string) {
			mu.Lock()
			paths = append(paths, rel)
			seen[rel] = true
			mu.Unlock()
		},
	}); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for rel := range req.Overlay {
		if seen[rel] || !within(start, rel) || !globs.match(rel, subPath(start, rel), path.Base(rel)) {
			continue
		}
		if ig != nil && ig.Ignored(rel, false) {
			continue
		}
		if _, err := root.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
			paths = append(paths, rel)
			total++
			sorted = false
		}
	}
	if !sorted {
		slices.SortFunc(paths, comparePaths)
	}
	if !indexed { // every path was collected
		total = len(paths)
	}
	return &FileList{Request: req, Paths: paths[:min(len(paths), limit)], Total: total}, nil
}

// indexListing asks x (when set) for the files below start that globs
// match.
func indexListing(x *Index, start string, globs *globSet) ([]indexedDir, bool) {
	if x == nil {
		return nil, false
	}
	return x.listing(start, globs, nil)
}

// listedPaths returns the paths of the first limit files of dirs, in
// their order, and the number of files in dirs. The paths share one
// allocation. They are not marked seen: an open buffer of a listed file is
// on disk, which the check for new buffers finds.
func listedPaths(dirs []indexedDir, limit int) ([]string, int) {
	size, count, total := 0, 0, 0
	for _, d := range dirs {
		total += len(d.files)
		for _, f := range d.files {
			if count == limit {
				break
			}
			size += len(d.rel) + 1 + len(f.name)
			count++
		}
	}
	arena := make([]byte, 0, size)
	paths := make([]string, 0, count)
	for _, d := range dirs {
		for _, f := range d.files {
			if len(paths) == count {
				return paths, total
			}
			from := len(arena)
			if d.rel != "." {
				arena = append(append(arena, d.rel...), '/')
			}
			arena = append(arena, f.name...)
			paths = append(paths, unsafe.String(&arena[from], len(arena)-from))
		}
	}
	return paths, total
}

// ErrNotDir is returned by Files when the path to search is a file.
var ErrNotDir = errors.New("not a directory; give a folder as path, or use read_file for a single file")

// Text renders the list with the cap applied; the last line says how many
// more paths there are when the cap leaves some out.
func (l *FileList) Text() (string, Shown) {
	var sh Shown
	if l.Total == 0 && len(l.Paths) == 0 {
		where := "the workspace"
		if p := cleanPath(l.Request.Path); p != "." {
			where = excerpt.Text(p)
		}
		return "No files match " + excerpt.Quote(l.Request.Pattern) + " in " + where + ".", sh
	}
	limit := l.Request.MaxResults
	if limit <= 0 {
		limit = DefaultMaxFiles
	}
	var b []byte
	for i, p := range l.Paths {
		if i == limit {
			break
		}
		sh.Files++
		b = append(b, p...)
		b = append(b, '\n')
	}
	sh.MoreFiles = max(l.Total, len(l.Paths)) - sh.Files
	if sh.MoreFiles > 0 {
		b = append(b, "["...)
		b = append(b, itoa(sh.MoreFiles)...)
		b = append(b, " more files not shown; narrow with path or a more specific pattern, or raise max_results]"...)
	}
	return string(trimNL(b)), sh
}

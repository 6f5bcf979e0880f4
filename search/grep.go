package search

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/whale-ls/whale-ls/workspace"
)

// Mode is what Grep reports per file.
type Mode string

const (
	// ModeContent reports matching lines, with context lines around them.
	ModeContent Mode = "content"
	// ModeFiles reports only the paths of files that match.
	ModeFiles Mode = "files"
	// ModeCount reports how many lines match in each file.
	ModeCount Mode = "count"
)

// Default caps: the number of matching lines shown in content mode, and the
// number of files shown in files and count modes and by Files.
const (
	DefaultMaxLines = 200
	DefaultMaxFiles = 100
	// MaxLineLen is the number of bytes of a line shown; longer lines are cut
	// around the first match.
	MaxLineLen = 500
)

// Request is one grep.
type Request struct {
	// Pattern is an RE2 regular expression (Go regexp syntax), matched
	// against each line without its line ending.
	Pattern string
	// Path is the folder or file to search, a slash path relative to the
	// root; "" or "." is the whole root.
	Path string
	// Include limits the search to files matching any of these
	// comma-separated doublestar globs ("*.go", "**/*.{ts,tsx}").
	Include         string
	CaseInsensitive bool
	// FixedStrings searches for Pattern as plain text.
	FixedStrings bool
	// Context is the number of lines shown before and after each match in
	// content mode.
	Context int
	// Mode defaults to ModeContent.
	Mode Mode
	// MaxResults caps what is shown: matching lines in content mode, files
	// otherwise. 0 means DefaultMaxLines or DefaultMaxFiles.
	MaxResults int
	// Overlay holds the text of files open in an editor, by slash path
	// relative to the root. Such a file is searched as this text instead of
	// its bytes on disk, and an overlay file that does not exist on disk yet
	// is searched too.
	Overlay map[string][]byte
	// Index, when set, is the file index of the root: a folder it can
	// answer for is searched by reading only the files it lists (and the
	// overlay), without walking. Results are the same either way.
	Index *Index

	// workLimit replaces WorkLimit when set (tests).
	workLimit int64
	// maxFileSize replaces MaxFileSize when set (tests).
	maxFileSize int
}

// fileSizeLimit is the size from which the request skips a file.
func (r *Request) fileSizeLimit() int {
	if r.maxFileSize > 0 {
		return r.maxFileSize
	}
	return MaxFileSize
}

// Line is one line of content output.
type Line struct {
	Number int    // 1-based
	Text   string // valid UTF-8, without line ending, cut to about MaxLineLen
	Match  bool   // false for a context line
}

// FileMatch is one file with matches.
type FileMatch struct {
	Path  string // slash path relative to the root
	Count int    // matching lines
	// Lines holds matching lines and their context, in order, in content
	// mode, as far as the file falls within the cap; nil otherwise.
	Lines []Line
}

// Result is the outcome of Grep. Files holds the files with a match, in
// path order (folder by folder, names in byte order): every one in content
// mode, and in files and count modes the first ones up to the cap
// (MaxResults or DefaultMaxFiles), which is all that Text shows, so that a
// search matching most of a large tree does not hold a record of each
// file; Text renders it with the caps applied.
type Result struct {
	Request Request
	Files   []FileMatch
	// FileCount is the number of files with a match, Matches the number of
	// matching lines in all of them (including those Files leaves out).
	FileCount, Matches int
	// TooLarge lists the files skipped because they hold MaxFileSize bytes
	// or more.
	TooLarge []string
}

// Grep searches the files below req.Path in root for req.Pattern.
//
// Guarantees: results are in path order, then line order, whatever the
// scheduling; paths are relative to the root; ".git", ignored files (see
// workspace.Ignorer) and symlinks are skipped (a symlink is never followed,
// so nothing outside the root is read); files with a NUL byte in their first
// 8 KiB are skipped as binary; a trailing "\r" is not part of a line. Overlay
// text replaces the disk contents of open files. Grep returns ctx.Err() soon
// after ctx is cancelled.
//
// Not guaranteed: a consistent snapshot (files changing during the search
// are read as they are at that moment), or binary detection beyond the
// first 8 KiB. An invalid pattern is a *PatternError, an invalid include
// glob a *GlobError; a missing Path is an error satisfying
// errors.Is(err, fs.ErrNotExist).
//
// Bounded work: a pattern over MaxPatternLen bytes or MaxPatternInsts
// compiled instructions is a *PatternTooLargeError before any file is read;
// where the regexp could be slow on a file (a long pattern, a long line),
// lines are judged by a lazily built automaton that stops with
// *WorkLimitError past WorkLimit steps on one file. The context is checked
// between files, between candidate lines and every 16 KiB within a long
// line.
func Grep(ctx context.Context, root *os.Root, ig *workspace.Ignorer, req Request) (*Result, error) {
	if req.Mode == "" {
		req.Mode = ModeContent
	}
	if req.Context < 0 {
		req.Context = 0
	}
	m, err := compilePattern(req.Pattern, req.FixedStrings, req.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	if req.workLimit > 0 {
		m.workLimit = req.workLimit
	}
	include, err := parseGlobs(req.Include)
	if err != nil {
		return nil, err
	}
	inner, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	g := &grepRun{outer: ctx, ctx: inner, stop: stop, m: m, mode: req.Mode, context: req.Context, keeper: newLineKeeper(req.contentCap())}
	if req.Mode != ModeContent {
		g.fileCap = req.MaxResults
		if g.fileCap <= 0 {
			g.fileCap = DefaultMaxFiles
		}
	}
	res := &Result{Request: req}
	start := cleanPath(req.Path)

	fi, err := root.Lstat(start)
	text, open := req.Overlay[start]
	switch {
	case err != nil && !(open && errors.Is(err, fs.ErrNotExist)):
		return nil, err
	case err != nil: // an open buffer that is not on disk yet
		g.searchText(start, text, false)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &fs.PathError{Op: "search", Path: start, Err: ErrSymlink}
	case fi.IsDir():
		if err := g.searchTree(root, ig, start, include, req); err != nil {
			return nil, err
		}
	case open:
		g.searchText(start, text, false)
	case fi.Mode().IsRegular() && fi.Size() >= int64(req.fileSizeLimit()):
		g.tooLarge = []string{start}
		return g.finish(res), nil // nothing was read
	case fi.Mode().IsRegular():
		data, err := root.ReadFile(start)
		if err != nil {
			return nil, err
		}
		g.searchText(start, data, true)
	}
	if err := g.failed(); err != nil {
		return nil, err
	}
	return g.finish(res), nil
}

// contentCap is how many matching lines the request keeps the text of: its
// MaxResults (or DefaultMaxLines) in content mode, none otherwise.
func (r *Request) contentCap() int {
	if r.Mode != ModeContent {
		return 0
	}
	if r.MaxResults <= 0 {
		return DefaultMaxLines
	}
	return r.MaxResults
}

// ErrSymlink is returned when the path to search is itself a symlink: search
// never follows symlinks.
var ErrSymlink = errors.New("is a symlink, and search does not follow symlinks; search the folder or file it points to by its own path")

// grepRun is the state of one Grep shared by the walk's workers.
type grepRun struct {
	outer context.Context // the caller's
	ctx   context.Context
	// stop ends the search early with a cause: the first file that needed
	// more than WorkLimit steps.
	stop    context.CancelCauseFunc
	m       *matcher
	mode    Mode
	context int
	keeper  *lineKeeper

	mu       sync.Mutex
	files    []FileMatch
	tooLarge []string
	// fileCap, when above 0, is how many files (the first in path order)
	// files keeps, as a max-heap by path while the search runs;
	// fileCount and matches count them all.
	fileCap            int
	fileCount, matches int
}

// failed is why the search stopped early: the caller's cancellation, or a
// file that needed too much work; nil when it did not.
func (g *grepRun) failed() error {
	if err := g.outer.Err(); err != nil {
		return err
	}
	if g.ctx.Err() != nil {
		return context.Cause(g.ctx)
	}
	return nil
}

// searchTree searches the folder start: its files on disk (walked in
// parallel, ignored and excluded ones skipped, open buffers searched in
// place of their bytes), then the open buffers below it that are not on
// disk yet.
func (g *grepRun) searchTree(root *os.Root, ig *workspace.Ignorer, start string, include *globSet, req Request) error {
	if req.Index != nil {
		content := &contentFilter{q: g.m.grams, overlay: req.Overlay}
		if dirs, ok := req.Index.listing(start, include, content); ok {
			return g.searchListed(root, ig, start, include, dirs, req)
		}
	}
	var seenMu sync.Mutex
	seen := map[string]bool{}
	workers := runtime.GOMAXPROCS(0)
	// One read buffer per worker, each touched only by its worker.
	bufs := make([]*[]byte, workers)
	cfg := walkConfig{
		root:    root,
		ig:      ig,
		start:   start,
		workers: workers,
		wantFile: func(rel, name string) bool {
			return include.match(rel, subPath(start, rel), name)
		},
		visit: func(worker int, h dirHandle, rel, name string) {
			if text, ok := req.Overlay[rel]; ok {
				seenMu.Lock()
				seen[rel] = true
				seenMu.Unlock()
				g.searchText(rel, text, false)
				return
			}
			bp := bufs[worker]
			if bp == nil {
				bp = getBuf()
				bufs[worker] = bp
			}
			*bp = g.searchFile(h, rel, name, *bp, req.fileSizeLimit(), -1)
		},
	}
	_, err := parallelWalk(g.ctx, cfg)
	for _, bp := range bufs {
		if bp != nil {
			putBuf(bp)
		}
	}
	if err := g.failed(); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	g.searchNewBuffers(root, ig, start, include, req.Overlay, seen)
	return nil
}

// listedChunk is how many files of one folder a worker of searchListed
// takes at a time, so that one huge folder is shared among workers.
const listedChunk = 64

// searchListed searches the files the index listed below start (open
// buffers in place of their bytes, files of the size limit or more noted
// unread), then the open buffers below it that are not on disk yet.
func (g *grepRun) searchListed(root *os.Root, ig *workspace.Ignorer, start string, include *globSet, dirs []indexedDir, req Request) error {
	type chunk struct {
		dir   *indexedDir
		files []indexFile
	}
	var chunks []chunk
	for i := range dirs {
		d := &dirs[i]
		for j := 0; j < len(d.files); j += listedChunk {
			chunks = append(chunks, chunk{d, d.files[j:min(j+listedChunk, len(d.files))]})
		}
	}
	limit := req.fileSizeLimit()
	var seenMu sync.Mutex
	seen := map[string]bool{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bp := getBuf()
			defer putBuf(bp)
			// The folder of the last chunk stays open for the next one,
			// which is often of the same folder; a file's path is built
			// in relBuf and copied only where it is kept (searchText).
			var h dirHandle
			var hDir *indexedDir
			defer func() {
				if h != nil {
					h.close()
				}
			}()
			var relBuf []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= len(chunks) || g.ctx.Err() != nil {
					return
				}
				c := chunks[i]
				if hDir != c.dir && h != nil {
					h.close()
					h = nil
				}
				hDir = c.dir
				relBuf = relBuf[:0]
				if c.dir.rel != "." {
					relBuf = append(append(relBuf, c.dir.rel...), '/')
				}
				prefix := len(relBuf)
				for _, f := range c.files {
					if g.ctx.Err() != nil {
						break
					}
					relBuf = append(relBuf[:prefix], f.name...)
					rel := unsafe.String(unsafe.SliceData(relBuf), len(relBuf))
					if text, ok := req.Overlay[rel]; ok {
						seenMu.Lock()
						seen[strings.Clone(rel)] = true
						seenMu.Unlock()
						g.searchText(rel, text, false)
						continue
					}
					if f.size >= int64(limit) {
						g.mu.Lock()
						g.tooLarge = append(g.tooLarge, strings.Clone(rel))
						g.mu.Unlock()
						continue
					}
					if h == nil {
						var err error
						if h, err = openStartDir(root, c.dir.rel); err != nil {
							break // gone since it was listed
						}
					}
					*bp = g.searchFile(h, rel, f.name, *bp, limit, f.size)
				}
			}
		}()
	}
	wg.Wait()
	if err := g.failed(); err != nil {
		return err
	}
	g.searchNewBuffers(root, ig, start, include, req.Overlay, seen)
	return nil
}

// searchFile reads the file name of h (rel from the root, which may be a
// reused buffer's view; size bytes, or -1 when unknown) into buf and
// searches it, noting it when it holds limit bytes or more; unreadable and
// binary files are skipped. It returns the buffer to reuse, grown if the
// file needed more room.
func (g *grepRun) searchFile(h dirHandle, rel, name string, buf []byte, limit int, size int64) []byte {
	data, err := h.readFile(name, buf, true, limit, size)
	if cap(data) > cap(buf) {
		buf = data[:0]
	}
	if errors.Is(err, errTooLarge) {
		g.mu.Lock()
		g.tooLarge = append(g.tooLarge, strings.Clone(rel))
		g.mu.Unlock()
	}
	if err == nil {
		g.searchText(rel, data, true)
	}
	return buf
}

// searchNewBuffers searches the open buffers below start that the walk did
// not meet (seen) and that do not exist on disk, as long as they are
// included and not ignored.
func (g *grepRun) searchNewBuffers(root *os.Root, ig *workspace.Ignorer, start string, include *globSet, overlay map[string][]byte, seen map[string]bool) {
	for rel, text := range overlay {
		if g.ctx.Err() != nil {
			break
		}
		if seen[rel] || !within(start, rel) || !include.match(rel, subPath(start, rel), path.Base(rel)) {
			continue
		}
		if ig != nil && ig.Ignored(rel, false) {
			continue
		}
		if _, err := root.Lstat(rel); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		g.searchText(rel, text, false)
	}
}

// searchText searches one file's bytes and records a match. rel may be a
// view of a buffer the caller reuses: what is kept of it is copied.
func (g *grepRun) searchText(rel string, data []byte, checkBinary bool) {
	if checkBinary && isBinary(data) {
		return
	}
	keep := 0
	if g.mode == ModeContent {
		keep = g.keeper.room(rel)
	}
	count, lines, err := g.m.scan(g.ctx, data, g.mode == ModeFiles, g.context, keep)
	if err != nil {
		if wl, ok := errors.AsType[*WorkLimitError](err); ok {
			wl.Path = strings.Clone(rel)
			g.stop(wl)
		}
		return
	}
	if count == 0 {
		return
	}
	fm := FileMatch{Path: strings.Clone(rel), Count: count, Lines: lines}
	if lines != nil {
		g.keeper.add(&fm)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fileCount++
	g.matches += count
	switch h := (*pathHeap[FileMatch])(&g.files); {
	case g.fileCap <= 0:
		g.files = append(g.files, fm)
	case len(g.files) < g.fileCap:
		heap.Push(h, fm)
	case comparePaths(rel, g.files[0].Path) < 0:
		g.files[0] = fm
		heap.Fix(h, 0)
	}
}

func (g *grepRun) finish(res *Result) *Result {
	kept := g.keeper.keptSet()
	for i := range g.files {
		f := &g.files[i]
		if f.Lines != nil && !kept[f.Path] {
			f.Lines = nil
		}
	}
	res.FileCount, res.Matches = g.fileCount, g.matches
	slices.SortFunc(g.files, func(a, b FileMatch) int { return comparePaths(a.Path, b.Path) })
	slices.SortFunc(g.tooLarge, comparePaths)
	res.Files = g.files
	res.TooLarge = g.tooLarge
	return res
}

// scan finds the matching lines of buf. With firstOnly it stops at the first
// match. It keeps the text of up to keep matching lines (and their context).
// It fails with ctx's error, checked between candidates and within long
// lines, or with *WorkLimitError (its Path left empty).
func (m *matcher) scan(ctx context.Context, buf []byte, firstOnly bool, around, keep int) (count int, lines []Line, err error) {
	var cur cursor
	if m.finder != nil {
		cur = m.finder.cursor()
	}
	j := &lineJudge{ctx: ctx, re: m.line}
	whole := m.buf
	if len(m.prog.Inst)*len(buf) >= m.dfaFrom {
		// The regexp could take long here, in calls that cannot be
		// interrupted: judge lines with the automaton instead.
		j.prog, j.classes, j.workLimit = m.prog, m.byteClasses, m.workLimit
		whole = nil
	}
	if whole != nil && bytes.IndexByte(buf, '\r') >= 0 {
		// "$" before "\r\n" holds per line but not in the buffer: check
		// line by line.
		whole = nil
	}
	lc := lineCollector{buf: buf, context: around, cursorLine: 1, judge: j}
	cntPos, cntLine := 0, 1
	// ls..le is the line of the last candidate; inLine says from is still
	// inside it (a window check failed and the finder goes on in the line).
	ls, le, inLine := 0, 0, false
	checked, steps := 0, 0
	for from := 0; from < len(buf); {
		if steps++; steps&255 == 0 || from-checked >= 1<<20 {
			if err := ctx.Err(); err != nil {
				return 0, nil, err
			}
			checked = from
		}
		var p int
		switch {
		case cur != nil:
			p = cur.next(buf, from)
		case whole != nil:
			loc := whole.FindIndex(buf[from:])
			if loc == nil {
				p = -1
			} else {
				p = from + loc[0]
			}
		default:
			p = from
		}
		// An empty match at the very end belongs to the last line only
		// when that line has no newline.
		if p < 0 || p > len(buf) || (p == len(buf) && buf[p-1] == '\n') {
			break
		}
		if !inLine || p >= le {
			ls = from
			if p > from {
				if i := bytes.LastIndexByte(buf[from:p], '\n'); i >= 0 {
					ls = from + i + 1
				}
			}
			le = len(buf)
			if i := bytes.IndexByte(buf[p:], '\n'); i >= 0 {
				le = p + i
			}
		}
		inLine = false
		line := trimCR(buf[ls:le])
		if !m.exact {
			if w := m.window; w != nil {
				lt := ls + len(line)
				rs, re := p, p
				for rs > ls && w.has(buf[rs-1]) {
					rs--
				}
				for re < lt && w.has(buf[re]) {
					re++
				}
				ok, err := j.match(buf[max(ls, rs-1):min(lt, re+1)])
				if err != nil {
					return 0, nil, err
				}
				if !ok {
					from, inLine = max(re, p+1), true
					continue
				}
			} else if ok, err := j.match(line); err != nil {
				return 0, nil, err
			} else if !ok {
				from = le + 1
				continue
			}
		}
		count++
		if firstOnly {
			return count, nil, nil
		}
		lineNo := cntLine + bytes.Count(buf[cntPos:ls], []byte{'\n'})
		cntPos, cntLine = ls, lineNo
		if count <= keep {
			lc.match(lineNo, ls, le)
		} else if count == keep+1 && keep > 0 {
			lc.flushAfter(lineNo)
		}
		from = le + 1
	}
	if keep > 0 && count <= keep {
		lc.flushAfter(0)
	}
	return count, lc.lines, ctx.Err()
}

// lineJudge decides, for one scan, whether a line (or a window of one)
// matches: by the regexp, or, when prog is set, by a lineDFA built on first
// use.
type lineJudge struct {
	ctx       context.Context
	re        *regexp.Regexp
	prog      *syntax.Prog
	classes   func() *byteClasses
	workLimit int64
	dfa       *lineDFA
}

func (j *lineJudge) automaton() *lineDFA {
	if j.dfa == nil {
		j.dfa = newLineDFA(j.prog, j.classes(), j.workLimit)
	}
	return j.dfa
}

func (j *lineJudge) match(b []byte) (bool, error) {
	if j.prog == nil {
		return j.re.Match(b), nil
	}
	return j.automaton().match(j.ctx, b)
}

// near returns an offset a little before the first match in line, where a
// cut line may start (0 when there is none).
func (j *lineJudge) near(line []byte) int {
	if j.prog == nil {
		if loc := j.re.FindIndex(line); loc != nil {
			return max(0, loc[0]-MaxLineLen/4)
		}
		return 0
	}
	// The automaton knows where the match ends: start early enough to
	// show a match of up to a quarter of a line.
	end, err := j.automaton().find(j.ctx, line)
	if err != nil || end < 0 {
		return 0
	}
	return max(0, end-MaxLineLen/2)
}

// lineCollector builds the content lines of one file: matches and the
// context lines around them, each line once.
type lineCollector struct {
	buf     []byte
	context int
	judge   *lineJudge // for cutting matching lines around the match
	lines   []Line
	// cursorLine/cursorPos is the first line not emitted yet and where it
	// starts; lastMatch is the line number of the last match.
	cursorLine, cursorPos int
	lastMatch             int
}

// match adds the matching line lineNo (bytes ls..le) and the context before
// it.
func (lc *lineCollector) match(lineNo, ls, le int) {
	lc.flushAfter(lineNo)
	if c := lc.context; c > 0 {
		first := max(lc.cursorLine, lineNo-c)
		// Walk back from ls to the start of line first.
		pos := ls
		for n := lineNo; n > first; n-- {
			pos = bytes.LastIndexByte(lc.buf[:pos-1], '\n') + 1
		}
		for n := first; n < lineNo; n++ {
			end := pos + bytes.IndexByte(lc.buf[pos:], '\n')
			lc.lines = append(lc.lines, Line{Number: n, Text: cutLine(trimCR(lc.buf[pos:end]), nil)})
			pos = end + 1
		}
	}
	lc.lines = append(lc.lines, Line{Number: lineNo, Text: cutLine(trimCR(lc.buf[ls:le]), lc.judge), Match: true})
	lc.lastMatch = lineNo
	lc.cursorLine, lc.cursorPos = lineNo+1, le+1
}

// flushAfter adds the context lines after the last match, stopping before
// line limit (0: no limit).
func (lc *lineCollector) flushAfter(limit int) {
	if lc.context == 0 || lc.lastMatch == 0 {
		return
	}
	for lc.cursorLine <= lc.lastMatch+lc.context && (limit == 0 || lc.cursorLine < limit) && lc.cursorPos < len(lc.buf) {
		end := len(lc.buf)
		if i := bytes.IndexByte(lc.buf[lc.cursorPos:], '\n'); i >= 0 {
			end = lc.cursorPos + i
		}
		lc.lines = append(lc.lines, Line{Number: lc.cursorLine, Text: cutLine(trimCR(lc.buf[lc.cursorPos:end]), nil)})
		lc.cursorLine, lc.cursorPos = lc.cursorLine+1, end+1
	}
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// cutLine renders a line as valid UTF-8, cut to about MaxLineLen bytes
// around the first match j finds (or from the start when j is nil).
func cutLine(line []byte, j *lineJudge) string {
	if len(line) <= MaxLineLen {
		return toValidUTF8(line)
	}
	start := 0
	if j != nil {
		start = j.near(line)
	}
	end := min(len(line), start+MaxLineLen)
	if end-start < MaxLineLen {
		start = max(0, end-MaxLineLen)
	}
	for start > 0 && start < len(line) && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(toValidUTF8(line[start:end]))
	if end < len(line) {
		b.WriteString("…")
	}
	return b.String()
}

func toValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// lineKeeper bounds the memory of content mode: it keeps the lines of only
// the files that come first in path order until they hold cap matching
// lines; files further down the order lose their lines (their counts stay).
type lineKeeper struct {
	cap int

	mu       sync.Mutex
	kept     pathHeap[keptFile]
	retained int // matching lines held by kept files
}

func newLineKeeper(cap int) *lineKeeper { return &lineKeeper{cap: cap} }

// room says how many matching lines a file at rel may keep.
func (k *lineKeeper) room(rel string) int {
	if k.cap <= 0 {
		return 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.retained >= k.cap && len(k.kept) > 0 && comparePaths(rel, k.kept[0].path) > 0 {
		return 0
	}
	return k.cap
}

func (k *lineKeeper) add(f *FileMatch) {
	n := min(f.Count, k.cap)
	k.mu.Lock()
	defer k.mu.Unlock()
	heap.Push(&k.kept, keptFile{path: f.Path, lines: n})
	k.retained += n
	for len(k.kept) > 1 && k.retained-k.kept[0].lines >= k.cap {
		top := heap.Pop(&k.kept).(keptFile)
		k.retained -= top.lines
	}
}

func (k *lineKeeper) keptSet() map[string]bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := make(map[string]bool, len(k.kept))
	for _, f := range k.kept {
		s[f.path] = true
	}
	return s
}

type keptFile struct {
	path  string
	lines int
}

func (k keptFile) pathOf() string  { return k.path }
func (f FileMatch) pathOf() string { return f.Path }

// pathHeap is a max-heap by path (container/heap): its top is what an
// entry earlier in path order replaces once a cap is reached.
type pathHeap[T interface{ pathOf() string }] []T

func (h pathHeap[T]) Len() int           { return len(h) }
func (h pathHeap[T]) Less(i, j int) bool { return comparePaths(h[i].pathOf(), h[j].pathOf()) > 0 }
func (h pathHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pathHeap[T]) Push(x any)        { *h = append(*h, x.(T)) }
func (h *pathHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// comparePaths orders slash paths folder by folder: "a/z" before "a-b",
// because "/" sorts before every other byte.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		if ca < cb {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// cleanPath normalises a request path to a slash path relative to the root.
func cleanPath(p string) string {
	if p == "" {
		return "."
	}
	p = path.Clean(p)
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "."
	}
	return p
}

// subPath is rel relative to the folder start.
func subPath(start, rel string) string {
	if start == "." {
		return rel
	}
	return strings.TrimPrefix(rel, start+"/")
}

// within reports whether rel is start or below it.
func within(start, rel string) bool {
	return start == "." || rel == start || strings.HasPrefix(rel, start+"/")
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 256<<10); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

// maxPooledBuf is the largest read buffer the pool keeps: one grown for a
// larger file goes to the collector rather than stay with the server.
const maxPooledBuf = 4 << 20

func putBuf(b *[]byte) {
	if cap(*b) > maxPooledBuf {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

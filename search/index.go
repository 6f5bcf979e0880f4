package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/whale-ls/whale-ls/workspace"
)

// IndexState says how an Index answers searches.
type IndexState string

const (
	// IndexBuilding: the index is being built; searches walk the folder.
	IndexBuilding IndexState = "building"
	// IndexReady: searches are answered from the index.
	IndexReady IndexState = "ready"
	// IndexWalking: the index is off (the status's Reason says why) and
	// searches walk the folder.
	IndexWalking IndexState = "walking"
	// IndexClosed: the index was closed; searches walk the folder.
	IndexClosed IndexState = "closed"
)

// IndexStatus is what an Index reports about itself.
type IndexStatus struct {
	Folder string
	State  IndexState
	// Reason says why the index is off (IndexWalking), or why it is being
	// rebuilt; empty otherwise.
	Reason string
	// Files and Dirs count what the index holds; BuildTime is how long the
	// last build took (zero before the first one ends).
	Files, Dirs int
	BuildTime   time.Duration
	// Rebuilds counts the builds after an overflow of the event queue.
	Rebuilds int
	// Contents counts the files whose content the filter knows (grep reads
	// only those of them that may match), ContentsPending those it has yet
	// to read (grep reads them all); FilterBytes is the memory the filter
	// takes.
	Contents, ContentsPending int
	FilterBytes               int64
	// FilterTime is how long after the index was ready the content
	// filter's first pass over every file ended (zero until it has): from
	// then on grep reads only the files that may match. During the pass it
	// already skips the files read so far that cannot.
	FilterTime time.Duration
}

// String is the status in one line, for logs and the tools' results.
func (s IndexStatus) String() string {
	switch s.State {
	case IndexReady:
		line := fmt.Sprintf("file index of %s ready: %d files in %d folders (built in %s)", s.Folder, s.Files, s.Dirs, s.BuildTime.Round(time.Millisecond))
		switch {
		case s.Contents == 0 && s.ContentsPending > 0:
			return line + fmt.Sprintf("; content filter: reading %d files", s.ContentsPending)
		case s.ContentsPending > 0:
			return line + fmt.Sprintf("; content filter: %d files (%.1f MiB), %d to read", s.Contents, float64(s.FilterBytes)/(1<<20), s.ContentsPending)
		}
		line += fmt.Sprintf("; content filter: %d files (%.1f MiB)", s.Contents, float64(s.FilterBytes)/(1<<20))
		if s.FilterTime > 0 {
			line += fmt.Sprintf(", first pass %s after the index", s.FilterTime.Round(time.Millisecond))
		}
		return line
	case IndexBuilding:
		if s.Reason != "" {
			return fmt.Sprintf("file index of %s being rebuilt (%s); searches walk the folder until it is ready", s.Folder, s.Reason)
		}
		return fmt.Sprintf("file index of %s being built; searches walk the folder until it is ready", s.Folder)
	case IndexWalking:
		return fmt.Sprintf("file index of %s is off: %s; searches walk the folder", s.Folder, s.Reason)
	}
	return fmt.Sprintf("file index of %s closed", s.Folder)
}

// IndexOptions configures an Index.
type IndexOptions struct {
	// Log gets one line when the index is ready and one when it falls back
	// to walking; nil discards them.
	Log *slog.Logger
	// MaxWatches caps the folders the index watches, below the kernel's own
	// limit (fs.inotify.max_user_watches); reaching either turns the index
	// off. 0 means the kernel's limit only.
	MaxWatches int

	// beforeDrain, when set, runs in the event reader before it reads a
	// batch of events (tests hold the reader back with it, to overflow the
	// kernel's event queue for real).
	beforeDrain func()
	// afterContentRead, when set, runs in the content indexer after it
	// read a file (rel from the root) and before it records its filter.
	afterContentRead func(rel string)
	// filterPlaced, when set, runs in the content indexer after it gave a
	// new content's files their filter (tests hold a pass half done).
	filterPlaced func()
	// contentBudget replaces the content filter's memory budget when set.
	contentBudget int64
}

// maxRebuilds is how many times an index is rebuilt after its event queue
// overflowed before it stays off.
const maxRebuilds = 3

// Index is the live list of one workspace folder's files: every regular
// file's path (ignore files applied as Grep applies them, ".git" and
// symlinks left out) and size (filled in just after
// the index is ready; searches do not need them to be right), and every
// folder, kept current by the kernel's change notifications (inotify on
// Linux).
//
// Guarantees: the index is built in the background (NewIndex returns at
// once) and searches walk the folder until it is ready; before it answers,
// it reads every change notification already queued, and the kernel queues
// them before the change's system call returns, so a file created, changed,
// renamed or deleted before a search began is seen by that search. An
// ignore file that changes makes its folder be listed again; so does
// .git/info/exclude (checked at every search). When the kernel's event
// queue overflows the index is rebuilt (searches walk meanwhile, up to
// maxRebuilds times); when the watch limit is reached, the root folder is
// moved or deleted, or the platform has no inotify, the index turns off for
// good and searches walk, which Status and one log line say.
//
// Not guaranteed: changes made through a path outside the folder that
// reaches it by a bind mount or a symlink are seen only if the kernel
// reports them for the watched folder (it does for bind mounts, not for
// network filesystems). An Index is safe for concurrent use.
type Index struct {
	root   *os.Root
	folder string
	opts   IndexOptions
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	// wg counts the build and event-reader goroutines.
	wg sync.WaitGroup

	mu       sync.Mutex
	status   IndexStatus
	changed  chan struct{} // closed and replaced at every change of state
	w        watcher       // nil unless ready
	ig       *workspace.Ignorer
	top      *indexDir
	byWd     map[int32]*indexDir
	exclude  string // the size and mtime of .git/info/exclude at build
	rebuilds int
	// readyAt is when the index was last ready.
	readyAt time.Time
	// content is the content filter (content.go); nil unless ready.
	content *contentTable
}

// indexDir is one folder of the index.
type indexDir struct {
	rel    string // slash path from the root, "." for the root
	parent *indexDir
	wd     int32
	rules  *workspace.DirRules
	files  []indexFile // by name
	// subs are the subfolders, by name (a map per folder took a third
	// more memory than the files' records on a large tree).
	subs []*indexDir
}

// sub returns the subfolder name of d, or nil.
func (d *indexDir) sub(name string) *indexDir {
	if i, ok := d.subIndex(name); ok {
		return d.subs[i]
	}
	return nil
}

// subIndex is where the subfolder name is, or would go, in d.subs.
func (d *indexDir) subIndex(name string) (int, bool) {
	return slices.BinarySearchFunc(d.subs, name, func(s *indexDir, name string) int { return strings.Compare(s.name(), name) })
}

// setSub makes s the subfolder of d of its name.
func (d *indexDir) setSub(s *indexDir) {
	if i, ok := d.subIndex(s.name()); ok {
		d.subs[i] = s
	} else {
		d.subs = slices.Insert(d.subs, i, s)
	}
}

// name is the folder's own name.
func (d *indexDir) name() string { return d.rel[strings.LastIndexByte(d.rel, '/')+1:] }

// indexFile is one regular file: 32 bytes plus its name.
type indexFile struct {
	name string
	// size is -1 until fillStats, shortly after the build, has looked.
	size int64
	// blob is the id of the file's content in the content filter, or the
	// state of its indexing (blobUnknown...).
	blob uint32
}

// NewIndex starts indexing the folder that root opens (folder names it in
// the status and the log) and returns at once. Close stops it.
func NewIndex(root *os.Root, folder string, o IndexOptions) *Index {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	x := &Index{root: root, folder: folder, opts: o, log: log, ctx: ctx, cancel: cancel, changed: make(chan struct{})}
	x.status = IndexStatus{Folder: folder, State: IndexBuilding}
	x.wg.Add(1)
	go x.build()
	return x
}

// Status returns the index's state now.
func (x *Index) Status() IndexStatus {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := x.status
	if x.content != nil {
		st.Contents, st.FilterBytes = x.content.files, x.content.bytes
		st.ContentsPending = st.Files - x.content.files - x.content.unfiltered
	}
	return st
}

// Wait blocks until the index is no longer being built (ready, off or
// closed) or ctx ends, and returns the status then.
func (x *Index) Wait(ctx context.Context) IndexStatus {
	for {
		x.mu.Lock()
		st, ch := x.status, x.changed
		x.mu.Unlock()
		if st.State != IndexBuilding {
			return st
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return st
		}
	}
}

// Close stops the index: the build and the event reader end, and their
// file descriptors are closed, before Close returns. Later searches walk.
func (x *Index) Close() {
	x.mu.Lock()
	x.stopWatchingLocked()
	x.setStateLocked(IndexClosed, "")
	x.mu.Unlock()
	x.cancel()
	x.wg.Wait()
}

func (x *Index) setStateLocked(st IndexState, reason string) {
	x.status.State, x.status.Reason = st, reason
	x.notifyLocked()
}

// notifyLocked wakes those waiting for a change of the index's state.
func (x *Index) notifyLocked() {
	close(x.changed)
	x.changed = make(chan struct{})
}

func (x *Index) stopWatchingLocked() {
	if x.w != nil {
		x.w.stop() // the reader closes it as it ends
		x.w = nil
	}
	if x.content != nil {
		x.content.close()
	}
	x.top, x.byWd, x.content = nil, nil, nil
	x.status.Files, x.status.Dirs = 0, 0
}

// fallBackLocked turns the index off for reason; with rebuild (and
// rebuilds left) it starts building it again.
func (x *Index) fallBackLocked(reason string, rebuild bool) {
	if x.status.State == IndexClosed {
		return
	}
	x.stopWatchingLocked()
	if rebuild && x.rebuilds < maxRebuilds {
		x.rebuilds++
		x.status.Rebuilds = x.rebuilds
		x.setStateLocked(IndexBuilding, reason)
		x.log.Warn("file index being rebuilt; searches walk the folder until it is ready", "folder", x.folder, "reason", reason)
		x.wg.Add(1)
		go x.build()
		return
	}
	x.setStateLocked(IndexWalking, reason)
	x.log.Warn("file index off; searches walk the folder", "folder", x.folder, "reason", reason)
}

// build lists the whole folder with a watch on every directory, installs
// the result, applies the events queued meanwhile and starts the reader.
func (x *Index) build() {
	defer x.wg.Done()
	began := time.Now()
	w, err := newWatcher(x.opts.MaxWatches)
	if err != nil {
		x.mu.Lock()
		x.fallBackLocked(err.Error(), false)
		x.mu.Unlock()
		return
	}
	ig := workspace.NewIgnorer(x.root)
	exclude := x.excludeStamp()
	top, byWd, files, err := x.scan(x.ctx, w, ig, ".", false)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.status.State == IndexClosed || x.ctx.Err() != nil {
		w.close()
		return
	}
	if err != nil {
		w.close()
		x.fallBackLocked(watchFailure(err, len(byWd)), false)
		return
	}
	x.w, x.ig, x.top, x.byWd, x.exclude = w, ig, top, byWd, exclude
	x.content = newContentTable()
	if x.opts.contentBudget > 0 {
		x.content.budget = x.opts.contentBudget
	}
	for _, n := range byWd {
		x.markDirtyLocked(n)
	}
	x.status.Files, x.status.Dirs, x.status.BuildTime = files, len(byWd), time.Since(began)
	x.status.FilterTime, x.readyAt = 0, time.Now()
	x.setStateLocked(IndexReady, "")
	x.drainLocked()
	if x.w != w { // the first events turned it off
		w.close()
		return
	}
	x.log.Info("file index ready", "folder", x.folder, "files", x.status.Files, "folders", x.status.Dirs, "ms", x.status.BuildTime.Milliseconds())
	x.wg.Add(2)
	go x.readEvents(w)
	go func(t *contentTable) {
		defer x.wg.Done()
		x.fillStats(w)
		x.indexContents(w, t)
	}(x.content)
	// The build's garbage (every path it joined, the listings) is several
	// times what the index keeps: give it back to the system now rather
	// than leave the server's RSS at its peak.
	go debug.FreeOSMemory()
}

// fillStats records the size of the files the build listed, one
// folder at a time, outside the lock but for the update itself. A file an
// event has touched since (its size known) keeps what the event recorded,
// which is newer. It ends early when the index closes or turns off.
func (x *Index) fillStats(w watcher) {
	x.mu.Lock()
	var dirs []*indexDir
	for _, n := range x.byWd {
		dirs = append(dirs, n)
	}
	x.mu.Unlock()
	for _, n := range dirs {
		if x.ctx.Err() != nil {
			return
		}
		x.mu.Lock()
		if x.w != w {
			x.mu.Unlock()
			return
		}
		names := make([]string, 0, len(n.files))
		for _, f := range n.files {
			if f.size < 0 {
				names = append(names, f.name)
			}
		}
		x.mu.Unlock()
		if len(names) == 0 {
			continue
		}
		h, err := openStartDir(x.root, n.rel)
		if err != nil {
			continue // gone: its events will have dropped it
		}
		stats := make(map[string]int64, len(names))
		for _, name := range names {
			if size, _, ok := h.stat(name); ok {
				stats[name] = size
			}
		}
		h.close()
		x.mu.Lock()
		if x.w == w && x.byWd[n.wd] == n {
			for i := range n.files {
				if size, ok := stats[n.files[i].name]; ok && n.files[i].size < 0 {
					n.files[i].size = size
				}
			}
		}
		x.mu.Unlock()
	}
}

// readEvents applies events as they come, until the watcher is stopped.
func (x *Index) readEvents(w watcher) {
	defer x.wg.Done()
	defer w.close()
	for w.wait() {
		if x.opts.beforeDrain != nil {
			x.opts.beforeDrain()
		}
		x.mu.Lock()
		if x.w != w {
			x.mu.Unlock()
			return
		}
		x.drainLocked()
		x.mu.Unlock()
	}
}

// errWatchLimit is the watch limit reached (the kernel's or MaxWatches).
var errWatchLimit = errors.New("watch limit reached")

func watchFailure(err error, watched int) string {
	if errors.Is(err, errWatchLimit) {
		return fmt.Sprintf("the inotify watch limit was reached after %d folders (%s); raise fs.inotify.max_user_watches (sysctl) and restart the server", watched, watchLimitText())
	}
	return "the folder could not be indexed: " + err.Error()
}

// scan lists the folder rel (with its subfolders) and watches each of
// them; withStats records each file's size as it goes (else it is left
// unknown, for fillStats). It returns the folder's node (with parent unset), the nodes by
// watch, and the number of files.
func (x *Index) scan(ctx context.Context, w watcher, ig *workspace.Ignorer, rel string, withStats bool) (*indexDir, map[int32]*indexDir, int, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var mu sync.Mutex
	nodes := map[string]*indexDir{}
	// A worker visits the files of one directory one after another: it
	// keeps that directory's node at hand instead of looking it up.
	workers := runtime.GOMAXPROCS(0)
	lastH := make([]dirHandle, workers)
	lastNode := make([]*indexDir, workers)
	_, err := parallelWalk(ctx, walkConfig{
		root:    x.root,
		ig:      ig,
		start:   rel,
		workers: workers,
		opened: func(h dirHandle, rel string) bool {
			wd, err := w.add(h)
			if err != nil {
				stop(err)
				return false
			}
			mu.Lock()
			nodes[rel] = &indexDir{rel: rel, wd: wd}
			mu.Unlock()
			return true
		},
		listed: func(rel string, rules *workspace.DirRules) {
			mu.Lock()
			nodes[rel].rules = rules
			mu.Unlock()
		},
		visit: func(worker int, h dirHandle, rel, name string) {
			// At the build, sizes come later (fillStats): the listing
			// alone is what searches need to be right, and the build is
			// faster without a stat per file.
			size := int64(-1)
			if withStats {
				var ok bool
				if size, _, ok = h.stat(name); !ok {
					return
				}
			}
			n := lastNode[worker]
			if lastH[worker] != h || n == nil {
				dir := "."
				if i := strings.LastIndexByte(rel, '/'); i >= 0 {
					dir = rel[:i]
				}
				mu.Lock()
				n = nodes[dir]
				mu.Unlock()
				lastH[worker], lastNode[worker] = h, n
			}
			n.files = append(n.files, indexFile{name: name, size: size})
		},
	})
	files := 0
	byWd := make(map[int32]*indexDir, len(nodes))
	for _, n := range nodes {
		byWd[n.wd] = n
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause
	}
	if err != nil {
		for wd := range byWd {
			w.remove(wd)
		}
		return nil, byWd, 0, err
	}
	for r, n := range nodes {
		files += len(n.files)
		slices.SortFunc(n.files, func(a, b indexFile) int { return strings.Compare(a.name, b.name) })
		n.files = packFiles(n.files)
		if r == rel {
			continue
		}
		p := nodes[path.Dir(r)]
		p.subs = append(p.subs, n)
		n.parent = p
	}
	for _, n := range nodes {
		if len(n.subs) > 0 {
			slices.SortFunc(n.subs, func(a, b *indexDir) int { return strings.Compare(a.name(), b.name()) })
			n.subs = slices.Clone(n.subs)
		}
	}
	return nodes[rel], byWd, files, nil
}

// excludeStamp identifies the current .git/info/exclude ("" when absent).
func (x *Index) excludeStamp() string {
	fi, err := x.root.Lstat(".git/info/exclude")
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}

// drainLocked applies every event the kernel has queued.
func (x *Index) drainLocked() {
	for x.w != nil {
		n, err := x.w.read(x.applyLocked)
		if err != nil {
			x.fallBackLocked("reading change notifications failed: "+err.Error(), false)
			return
		}
		if n == 0 {
			return
		}
	}
}

// fsEvent is one change notification, as the watcher translates it.
type fsEvent struct {
	wd    int32
	op    eventOp
	isDir bool
	name  string
}

type eventOp uint8

const (
	opChange   eventOp = iota // name created, written, touched or moved in
	opGone                    // name deleted or moved out
	opSelfGone                // the watched folder itself was moved or deleted
	opIgnored                 // the watch was removed
	opOverflow                // the kernel's queue overflowed: events were lost
)

// applyLocked brings the index in line with the disk for one event. It
// looks at the disk rather than at what the event says, so that events
// applied late (after the build, or after later changes) still leave the
// index right.
func (x *Index) applyLocked(ev fsEvent) {
	if x.w == nil {
		return
	}
	switch ev.op {
	case opOverflow:
		x.fallBackLocked("the inotify event queue overflowed (more changes at once than fs.inotify.max_queued_events)", true)
		return
	case opIgnored:
		if n := x.byWd[ev.wd]; n == x.top {
			x.fallBackLocked("the folder was moved or deleted", false)
		} else if n != nil {
			delete(x.byWd, ev.wd)
		}
		return
	}
	n := x.byWd[ev.wd]
	if n == nil {
		return
	}
	if ev.op == opSelfGone {
		if n == x.top {
			x.fallBackLocked("the folder was moved or deleted", false)
		}
		return
	}
	if ev.name == "" || ev.name == ".git" {
		return
	}
	rel := joinRel(n.rel, ev.name)
	if !ev.isDir && (ev.name == ".gitignore" || ev.name == ".ignore") {
		x.rescanLocked(n)
		return
	}
	if ev.isDir {
		x.dropLocked(n, ev.name)
		if ev.op == opChange {
			if fi, err := x.root.Lstat(rel); err == nil && fi.IsDir() && !n.rules.Ignored(rel, true) {
				x.addLocked(n, ev.name)
			}
		}
		return
	}
	i, found := slices.BinarySearchFunc(n.files, ev.name, func(f indexFile, name string) int { return strings.Compare(f.name, name) })
	fi, err := x.root.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() || n.rules.Ignored(rel, false) {
		if found {
			x.content.release(n.files[i].blob)
			n.files = slices.Delete(n.files, i, i+1)
			x.status.Files--
		}
		return
	}
	// Whatever the event, the content may have changed: the content
	// indexer reads the file again, and searches read it until then.
	f := indexFile{name: ev.name, size: fi.Size()}
	x.markDirtyLocked(n)
	if found {
		x.content.release(n.files[i].blob)
		f.name = n.files[i].name
		n.files[i] = f
		return
	}
	n.files = slices.Insert(n.files, i, f)
	x.status.Files++
}

// dropLocked removes the subfolder name of n, and everything below it,
// from the index, with their watches and cached ignore rules.
func (x *Index) dropLocked(n *indexDir, name string) {
	i, ok := n.subIndex(name)
	if !ok {
		return
	}
	sub := n.subs[i]
	n.subs = slices.Delete(n.subs, i, i+1)
	x.ig.Forget(sub.rel)
	x.forgetTreeLocked(sub)
}

func (x *Index) forgetTreeLocked(d *indexDir) {
	if x.byWd[d.wd] == d {
		delete(x.byWd, d.wd)
		x.w.remove(d.wd)
	}
	x.status.Files -= len(d.files)
	x.status.Dirs--
	for _, f := range d.files {
		x.content.release(f.blob)
	}
	delete(x.content.dirty, d)
	for _, s := range d.subs {
		x.forgetTreeLocked(s)
	}
}

// addLocked lists the new subfolder name of n into the index.
func (x *Index) addLocked(n *indexDir, name string) {
	sub, byWd, files, err := x.scan(x.ctx, x.w, x.ig, joinRel(n.rel, name), true)
	if err != nil {
		if errors.Is(err, errWatchLimit) {
			x.fallBackLocked(watchFailure(err, len(x.byWd)+len(byWd)), false)
		} else if x.ctx.Err() == nil && !errors.Is(err, fs.ErrNotExist) {
			x.fallBackLocked(watchFailure(err, len(x.byWd)), false)
		}
		return
	}
	sub.parent = n
	n.setSub(sub)
	maps.Copy(x.byWd, byWd)
	for _, d := range byWd {
		x.markDirtyLocked(d)
	}
	x.status.Files += files
	x.status.Dirs += len(byWd)
}

// rescanLocked lists the folder n again (its ignore rules changed).
func (x *Index) rescanLocked(n *indexDir) {
	if n == x.top {
		x.ig.Forget(".")
		x.forgetTreeLocked(n)
		top, byWd, files, err := x.scan(x.ctx, x.w, x.ig, ".", true)
		if err != nil {
			if x.ctx.Err() == nil {
				x.fallBackLocked(watchFailure(err, len(byWd)), false)
			}
			return
		}
		x.top, x.byWd = top, byWd
		for _, d := range byWd {
			x.markDirtyLocked(d)
		}
		x.status.Files, x.status.Dirs = files, len(byWd)
		return
	}
	p, name := n.parent, path.Base(n.rel)
	x.dropLocked(p, name)
	if fi, err := x.root.Lstat(n.rel); err == nil && fi.IsDir() {
		x.addLocked(p, name)
	}
}

// packFiles returns files in a slice of their own size (the listing grew
// it by doubling), with their names in one allocation (the listing made
// one per name): together a third less memory for a large tree.
func packFiles(files []indexFile) []indexFile {
	if len(files) == 0 {
		return nil
	}
	size := 0
	for _, f := range files {
		size += len(f.name)
	}
	names := make([]byte, 0, size)
	out := make([]indexFile, len(files))
	for i, f := range files {
		from := len(names)
		names = append(names, f.name...)
		f.name = unsafe.String(unsafe.SliceData(names[from:]), len(f.name))
		out[i] = f
	}
	return out
}

func joinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// indexedDir is a folder's files as a search sees them.
type indexedDir struct {
	rel   string
	files []indexFile
}

// listing returns the indexed files below start (a cleaned slash path)
// that globs match (nil: all) and, with a content filter, that it keeps,
// after applying every queued change; in path order (comparePaths), a
// folder's files split where its subfolders come between them. ok is false
// when the index cannot answer: it is not ready, or start is not an indexed
// folder (ignored, say), and the caller walks instead.
func (x *Index) listing(start string, globs *globSet, content *contentFilter) (dirs []indexedDir, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.status.State != IndexReady {
		return nil, false
	}
	x.drainLocked()
	if x.w != nil && x.excludeStamp() != x.exclude {
		x.ig = workspace.NewIgnorer(x.root)
		x.exclude = x.excludeStamp()
		x.rescanLocked(x.top)
	}
	if x.w == nil || x.status.State != IndexReady {
		return nil, false
	}
	d := x.top
	if start != "." {
		for _, c := range strings.Split(start, "/") {
			if d = d.sub(c); d == nil {
				return nil, false
			}
		}
	}
	byName := globs == nil || globs.nameOnly()
	// The path of a file is built in scratch, after its folder's prefix (n
	// bytes), only when a test needs it; the tests must not keep it.
	var scratch []byte
	keep := func(f indexFile, n int) bool {
		if byName {
			if !globs.matchName(f.name) {
				return false
			}
			if content == nil {
				return true
			}
		}
		scratch = append(scratch[:n], f.name...)
		rel := unsafe.String(unsafe.SliceData(scratch), len(scratch))
		if !byName && !globs.match(rel, subPath(start, rel), f.name) {
			return false
		}
		return content == nil || content.keep(x.content, rel, f.blob)
	}
	var walk func(d *indexDir)
	walk = func(d *indexDir) {
		prefix := func() int {
			scratch = scratch[:0]
			if d.rel != "." {
				scratch = append(append(scratch, d.rel...), '/')
			}
			return len(scratch)
		}
		n := prefix()
		var run []indexFile
		flush := func() {
			if len(run) > 0 {
				dirs = append(dirs, indexedDir{rel: d.rel, files: run})
				run = nil
			}
		}
		// The files before each subfolder's name, then the subfolder; at
		// last the files after every subfolder.
		subs := d.subs
		pos := 0
		for si := 0; si <= len(subs); si++ {
			end := len(d.files)
			if si < len(subs) {
				name := subs[si].name()
				end = pos + sort.Search(end-pos, func(i int) bool { return d.files[pos+i].name > name })
			}
			for _, f := range d.files[pos:end] {
				if keep(f, n) {
					run = append(run, f)
				}
			}
			pos = end
			if si < len(subs) {
				flush()
				walk(subs[si])
				n = prefix()
			}
		}
		flush()
	}
	walk(d)
	return dirs, true
}

// watcher is the platform's change notification, one instance per index.
// add is safe for concurrent use; the others are called under the index's
// lock, except wait and close (the reader's).
type watcher interface {
	// add watches the directory h and returns the watch's id;
	// errWatchLimit when the limit is reached.
	add(h dirHandle) (int32, error)
	remove(wd int32)
	// read applies the events queued now, without blocking, and returns
	// how many it read (0: none queued).
	read(apply func(fsEvent)) (int, error)
	// wait blocks until events are queued (true) or stop was called (false).
	wait() bool
	stop()
	close()
}

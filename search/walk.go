package search

import (
	"context"
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/whale-ls/whale-ls/workspace"
)

var errBinary = errors.New("binary file")

// walkConfig says what the parallel walk visits.
type walkConfig struct {
	root           *os.Root
	ig             *workspace.Ignorer
	start          string // directory, slash path relative to root
	includeIgnored bool
	// workers is the number of goroutines; 0 means one per CPU.
	workers int
	// wantFile filters files by their path before they are visited; nil
	// accepts every file.
	wantFile func(rel, name string) bool
	// visit is called for every regular file that is not ignored, on one of
	// the walk's goroutines; worker identifies that goroutine (0..workers-1).
	visit func(worker int, dir dirHandle, rel, name string)
	// opened, when set, is called with every directory handle before the
	// directory is listed; false skips the directory (the file index adds
	// its watch here, so that nothing created after the listing is missed).
	opened func(dir dirHandle, rel string) bool
	// listed, when set, is called with the rules in force in each listed
	// directory, before its entries are visited.
	listed func(rel string, rules *workspace.DirRules)
}

// dirNode is a listed directory whose handle stays open while subdirectory
// tasks still need it to open their own handles.
type dirNode struct {
	h    dirHandle
	refs atomic.Int32
}

func (n *dirNode) release() {
	if n.refs.Add(-1) == 0 {
		n.h.close()
	}
}

// dirTask is a directory waiting to be listed: either an open handle (the
// start) or a name to open from its parent.
type dirTask struct {
	parent *dirNode
	h      dirHandle
	name   string
	rel    string
}

// parallelWalk visits every file below cfg.start with one goroutine per CPU.
// Directories are taken last in, first out, so the tree is walked roughly
// depth first and few directories are open at a time. Order of visits is not
// defined; callers sort. It returns ctx.Err() when cancelled, and the error
// opening the start directory; unreadable subdirectories are skipped.
func parallelWalk(ctx context.Context, cfg walkConfig) (workers int, err error) {
	h, err := openStartDir(cfg.root, cfg.start)
	if err != nil {
		return 0, err
	}
	workers = cfg.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	q := &taskQueue{}
	q.cond.L = &q.mu
	q.push(dirTask{h: h, rel: cfg.start})

	stop := context.AfterFunc(ctx, q.cancel)
	defer stop()

	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t, ok := q.pop()
				if !ok {
					return
				}
				walkDir(ctx, cfg, q, i, t)
				q.done()
			}
		}()
	}
	wg.Wait()
	// Tasks left behind by a cancellation still hold references.
	for _, t := range q.tasks {
		if t.parent != nil {
			t.parent.release()
		} else if t.h != nil {
			t.h.close()
		}
	}
	return workers, ctx.Err()
}

func walkDir(ctx context.Context, cfg walkConfig, q *taskQueue, worker int, t dirTask) {
	h := t.h
	if h == nil {
		var err error
		h, err = t.parent.h.openDir(t.name)
		t.parent.release()
		if err != nil {
			return
		}
	}
	node := &dirNode{h: h}
	node.refs.Store(1)
	defer node.release()
	if ctx.Err() != nil {
		return
	}
	if cfg.opened != nil && !cfg.opened(h, t.rel) {
		return
	}
	entries, err := h.list()
	if err != nil && len(entries) == 0 {
		return
	}
	var rules *workspace.DirRules
	if !cfg.includeIgnored && cfg.ig != nil {
		var gi, ign []byte
		for _, e := range entries {
			if e.kind != kindFile {
				continue
			}
			switch e.name {
			case ".gitignore":
				gi = readSmall(h, e.name)
			case ".ignore":
				ign = readSmall(h, e.name)
			}
		}
		rules = cfg.ig.Preload(t.rel, gi, ign)
	}
	if cfg.listed != nil {
		cfg.listed(t.rel, rules)
	}
	prefix := ""
	if t.rel != "." {
		prefix = t.rel + "/"
	}
	// Subdirectories first, so that idle workers can take them while this
	// one searches the files.
	for _, e := range entries {
		if e.kind != kindDir || e.name == ".git" {
			continue
		}
		rel := prefix + e.name
		if rules != nil && rules.Ignored(rel, true) {
			continue
		}
		node.refs.Add(1)
		q.push(dirTask{parent: node, name: e.name, rel: rel})
	}
	for _, e := range entries {
		if e.kind != kindFile || e.name == ".git" {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		rel := prefix + e.name
		if cfg.wantFile != nil && !cfg.wantFile(rel, e.name) {
			continue
		}
		if rules != nil && rules.Ignored(rel, false) {
			continue
		}
		cfg.visit(worker, h, rel, e.name)
	}
}

// readSmall reads an ignore file; a failure counts as an empty file.
func readSmall(h dirHandle, name string) []byte {
	b, err := h.readFile(name, make([]byte, 0, 4096), false, MaxFileSize, -1)
	if err != nil {
		return nil
	}
	return b
}

// taskQueue is a LIFO of directories shared by the walk's workers. It knows
// when the walk is over: no task queued and none being worked on.
type taskQueue struct {
	mu   sync.Mutex
	cond sync.Cond
	// tasks waits to be taken; active counts tasks taken and not done.
	tasks     []dirTask
	active    int
	cancelled bool
}

func (q *taskQueue) push(t dirTask) {
	q.mu.Lock()
	q.tasks = append(q.tasks, t)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *taskQueue) pop() (dirTask, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.tasks) == 0 && q.active > 0 && !q.cancelled {
		q.cond.Wait()
	}
	if q.cancelled || len(q.tasks) == 0 {
		return dirTask{}, false
	}
	t := q.tasks[len(q.tasks)-1]
	q.tasks = q.tasks[:len(q.tasks)-1]
	q.active++
	return t, true
}

func (q *taskQueue) done() {
	q.mu.Lock()
	q.active--
	finished := q.active == 0 && len(q.tasks) == 0
	q.mu.Unlock()
	if finished {
		q.cond.Broadcast()
	}
}

func (q *taskQueue) cancel() {
	q.mu.Lock()
	q.cancelled = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

package sandbox

import (
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is what each watched folder reports: entries made, written,
// moved and removed. Attribute changes are left out: Go's build cache
// touches the times of every entry a build uses, and the mount namespace
// already keeps modes and owners outside the writable folders.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK | unix.IN_ONLYDIR

// cacheWatch is the process's one inotify instance over the caches.
type cacheWatch struct {
	mu    sync.Mutex
	fd    int
	dirs  map[int32]*watchedDir
	roots map[string]string // a watched cache's real path: why it is not wholly watched, or ""
	marks map[*markState]bool
	buf   []byte
	// budget is how many more folders may be watched: an eighth of the
	// user's inotify watches, which editors' file watchers share.
	budget int
}

// watchedDir is one watched folder: its path and the hashes of the names
// in it, sorted, so that a rename onto a name that exists is told from one
// onto a new name.
type watchedDir struct {
	path  string
	names []uint64
	// modules marks a Go module cache's folders: a module in it
	// (name@version) is one entry, not watched inside, since a task
	// cannot change a module that is there (Policy.ModuleCaches).
	modules bool
}

var (
	theWatch     *cacheWatch
	theWatchErr  error
	theWatchOnce sync.Once
	nameSeed     = maphash.MakeSeed()
)

// watchCaches adds st to the process's watch, watching its roots first if
// they are new; it returns nil when inotify is not available.
func watchCaches(st *markState) func() {
	theWatchOnce.Do(func() { theWatch, theWatchErr = startWatch() })
	w := theWatch
	if theWatchErr != nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain() // what came before the mark is not the mark's
	for i, r := range st.roots {
		real, err := filepath.EvalSymlinks(r.Path)
		if err != nil {
			st.lose(fmt.Sprintf("%s could not be watched (%v)", r.Path, err))
			continue
		}
		st.roots[i].Path = real
		why, seen := w.roots[real]
		if !seen {
			why = w.watchTree(real, false, r.Why == goModuleCache)
			w.roots[real] = why
		}
		if why != "" {
			st.lose(why)
		}
	}
	w.marks[st] = true
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.drain()
		delete(w.marks, st)
	}
}

func startWatch() (*cacheWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "inotify")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	w := &cacheWatch{fd: fd, dirs: map[int32]*watchedDir{}, roots: map[string]string{}, marks: map[*markState]bool{}, buf: make([]byte, 64<<10), budget: 1024}
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n/8 > w.budget {
			w.budget = n / 8
		}
	}
	go func() {
		// The poller calls back whenever the queue has events; the watch
		// lives as long as the process.
		_ = rc.Read(func(uintptr) bool {
			w.mu.Lock()
			w.drain()
			w.mu.Unlock()
			return false
		})
	}()
	return w, nil
}

// watchTree watches dir and every folder beneath it (symbolic links not
// followed), but not inside a module of a Go module cache (modules). With
// added, each entry found is one added for the marks: a folder that came
// while they were open. It returns why the tree is not wholly watched, or
// "". The folders are read by as many goroutines as there are CPUs (at
// most 8): reading every folder of a large cache is most of a first
// mark's time.
func (w *cacheWatch) watchTree(root string, added, modules bool) string {
	t := treeWalk{w: w, stack: []string{root}, added: added, modules: modules, found: map[int32]*watchedDir{}}
	t.cond = sync.NewCond(&t.mu)
	var done sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 8) {
		done.Go(t.work)
	}
	done.Wait()
	maps.Copy(w.dirs, t.found)
	return t.why
}

// treeWalk is one watchTree's shared state.
type treeWalk struct {
	w              *cacheWatch
	added, modules bool

	mu     sync.Mutex
	cond   *sync.Cond
	stack  []string // folders still to read
	active int      // folders being read
	found  map[int32]*watchedDir
	why    string
}

// work reads folders off the stack until it is empty and no other worker
// may add to it.
func (t *treeWalk) work() {
	for {
		t.mu.Lock()
		for len(t.stack) == 0 && t.active > 0 {
			t.cond.Wait()
		}
		if len(t.stack) == 0 {
			t.mu.Unlock()
			t.cond.Broadcast()
			return
		}
		dir := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		if t.w.budget <= 0 {
			if t.why == "" {
				t.why = fmt.Sprintf("the caches have more folders than whale-ls watches (an eighth of fs.inotify.max_user_watches); %s and others are not watched", dir)
			}
			t.stack = nil
			t.mu.Unlock()
			continue
		}
		t.w.budget--
		t.active++
		t.mu.Unlock()

		wd, d, subdirs, why := t.read(dir)

		t.mu.Lock()
		t.active--
		if d != nil {
			if _, dup := t.found[wd]; !dup {
				t.found[wd] = d
				t.stack = append(t.stack, subdirs...)
			}
		} else {
			t.w.budget++
		}
		if why != "" && t.why == "" {
			t.why = why
		}
		t.mu.Unlock()
		t.cond.Broadcast()
	}
}

// read watches and reads one folder: its watch, its names and the folders
// in it to read next. d is nil when the folder is not watched anew.
func (t *treeWalk) read(dir string) (wd int32, d *watchedDir, subdirs []string, why string) {
	n, err := unix.InotifyAddWatch(t.w.fd, dir, watchMask)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			why = fmt.Sprintf("the system's inotify watches are used up (fs.inotify.max_user_watches); %s is not watched", dir)
		}
		return 0, nil, nil, why // or a folder that went away, or one that cannot be read
	}
	wd = int32(n)
	if _, ok := t.w.dirs[wd]; ok {
		return 0, nil, nil, "" // a cache inside one already watched
	}
	f, err := os.Open(dir)
	if err != nil {
		return wd, &watchedDir{path: dir, modules: t.modules}, nil, ""
	}
	ents, _ := f.ReadDir(-1)
	_ = f.Close()
	d = &watchedDir{path: dir, names: make([]uint64, 0, len(ents)), modules: t.modules}
	for _, e := range ents {
		name := e.Name()
		d.names = append(d.names, maphash.String(nameSeed, name))
		switch {
		case e.IsDir() && !d.isModule(name):
			subdirs = append(subdirs, dir+string(filepath.Separator)+name)
		case t.added:
			t.w.notify(dir+string(filepath.Separator)+name, entryAdded)
		}
	}
	slices.Sort(d.names)
	return wd, d, subdirs, ""
}

// isModule reports whether the folder name in d is a module of a Go module
// cache ("yaml.v3@v3.0.1", the last element of "gopkg.in/yaml.v3@v3.0.1"),
// not the download cache's "@v" folders.
func (d *watchedDir) isModule(name string) bool {
	return d.modules && strings.Contains(name, "@") && !strings.HasPrefix(name, "@")
}

// drain reads and applies every event queued (w.mu held).
func (w *cacheWatch) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			return // EAGAIN: the queue is empty
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			w.apply(ev.Wd, ev.Mask, strings.TrimRight(string(name), "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// apply folds one event into the watched folders and the open marks.
func (w *cacheWatch) apply(wd int32, mask uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		for m := range w.marks {
			m.lose("more changes came at once than the system keeps (fs.inotify.max_queued_events)")
		}
		return
	}
	d := w.dirs[wd]
	if mask&unix.IN_IGNORED != 0 {
		delete(w.dirs, wd) // the folder is gone
		return
	}
	if d == nil || name == "" {
		return
	}
	path := filepath.Join(d.path, name)
	h := maphash.String(nameSeed, name)
	i, existed := slices.BinarySearch(d.names, h)
	isDir := mask&unix.IN_ISDIR != 0
	switch {
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		if !existed {
			d.names = slices.Insert(d.names, i, h)
		}
		switch {
		case isDir && !d.isModule(name):
			w.watchTree(path, true, d.modules)
		case existed && mask&unix.IN_MOVED_TO != 0:
			w.notify(path, entryRewritten) // renamed over an entry that was there
		default:
			w.notify(path, entryAdded)
		}
	case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		if existed {
			d.names = slices.Delete(d.names, i, i+1)
		}
		if isDir && mask&unix.IN_MOVED_FROM != 0 {
			w.forget(path)
			w.notify(path, entryRemoved) // its files went with it
		} else if !isDir {
			w.notify(path, entryRemoved)
		}
	case mask&unix.IN_MODIFY != 0 && !isDir:
		w.notify(path, entryRewritten)
	}
}

// forget stops watching the folders at and under path, which moved away:
// their paths no longer hold. Where they went in is watched anew.
func (w *cacheWatch) forget(path string) {
	for wd, d := range w.dirs {
		if d.path == path || strings.HasPrefix(d.path, path+string(filepath.Separator)) {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.dirs, wd)
		}
	}
}

func (w *cacheWatch) notify(path string, kind entryKind) {
	for m := range w.marks {
		m.note(path, kind)
	}
}

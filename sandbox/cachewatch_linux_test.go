package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestWatchCaches: what happens in a cache while a mark is open is told
// apart — an entry added (a temporary file that went away is not one),
// rewritten in place, replaced by a rename, rewritten where the toolchain
// does so itself (a Go action entry), removed, a folder moved away, a
// folder made with files in it — for the innermost cache that holds it,
// and nothing from before the mark or after it.
func TestWatchCaches(t *testing.T) {
	home := t.TempDir()
	cache := filepath.Join(home, "cache")
	build := filepath.Join(cache, "go-build")
	for _, f := range []string{"go-build/ab/ab01-d", "go-build/ab/ab02-d", "go-build/cd/cd01-d", "go-build/cd/cd02-a", "pip/http/x", "pip/http/y", "old/z", "keep"} {
		write(t, filepath.Join(cache, f), "before")
	}
	roots := []Root{{Path: cache, Why: "user cache folder", Cache: true}, {Path: build, Why: "Go build cache", Cache: true}}
	before := WatchCaches(roots)
	if before == nil {
		t.Skip("inotify is not available here")
	}
	write(t, filepath.Join(cache, "keep"), "changed before the mark")
	before.Close()

	m := WatchCaches(roots)
	write(t, filepath.Join(build, "ab", "ab03-d"), "new")                                   // added
	write(t, filepath.Join(build, "ab", "ab01-d"), "poisoned")                              // rewritten in place
	write(t, filepath.Join(build, "tmp-1"), "temp")                                         // added, then renamed over an entry:
	must(t, os.Rename(filepath.Join(build, "tmp-1"), filepath.Join(build, "cd", "cd01-d"))) // replaced
	write(t, filepath.Join(build, "cd", "cd02-a"), "action")                                // updated, as go does
	must(t, os.Remove(filepath.Join(build, "ab", "ab02-d")))                                // removed
	write(t, filepath.Join(cache, "pip", "tmp-2"), "temp")                                  // a temporary file
	must(t, os.Remove(filepath.Join(cache, "pip", "tmp-2")))                                // that went away
	must(t, os.Rename(filepath.Join(cache, "old"), filepath.Join(home, "old")))             // a folder moved out
	write(t, filepath.Join(cache, "new", "deep", "n1"), "made with its folders")
	got := m.Changes()
	write(t, filepath.Join(cache, "keep"), "changed after the mark")
	if again := m.Changes(); !reflect.DeepEqual(again, got) {
		t.Errorf("a second Changes = %+v, want the first's %+v", again, got)
	}

	want := CacheReport{Caches: []CacheChanges{
		{Root: roots[0], Added: 1, Removed: 1},
		{Root: roots[1], Added: 1, Removed: 1, Rewritten: 2, Updated: 1, Examples: []string{"ab/ab01-d", "cd/cd01-d"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes =\n%+v\nwant\n%+v", got, want)
	}
}

// TestWatchCachesModules: in a Go module cache a module is one entry: one
// extracted the way go does it (into a temporary folder, renamed into
// place) is one added, and no folder inside a module is watched.
func TestWatchCachesModules(t *testing.T) {
	mod := t.TempDir()
	write(t, filepath.Join(mod, "example.com", "a@v1.0.0", "pkg", "a.go"), "package a")
	write(t, filepath.Join(mod, "cache", "download", "example.com", "a", "@v", "v1.0.0.zip"), "zip")
	roots := []Root{{Path: mod, Why: goModuleCache, Cache: true}}
	m := WatchCaches(roots)
	if m == nil {
		t.Skip("inotify is not available here")
	}
	theWatch.mu.Lock()
	for _, d := range theWatch.dirs {
		if strings.Contains(d.path, "a@v1.0.0") {
			t.Errorf("%s is watched, inside a module", d.path)
		}
	}
	theWatch.mu.Unlock()
	tmp := filepath.Join(mod, "example.com", "b@v1.0.0.tmp-42")
	write(t, filepath.Join(tmp, "b.go"), "package b")
	must(t, os.Rename(tmp, filepath.Join(mod, "example.com", "b@v1.0.0")))
	write(t, filepath.Join(mod, "cache", "download", "example.com", "b", "@v", "v1.0.0.zip"), "zip")
	want := CacheReport{Caches: []CacheChanges{{Root: roots[0], Added: 2}}}
	if got := m.Changes(); !reflect.DeepEqual(got, want) {
		t.Errorf("Changes = %+v, want %+v", got, want)
	}
}

// TestWatchCachesNoRoots: a policy without caches watches nothing, and a
// nil mark answers like an empty one.
func TestWatchCachesNoRoots(t *testing.T) {
	m := WatchCaches(nil)
	if m != nil {
		t.Fatalf("WatchCaches(nil) = %v, want nil", m)
	}
	if r := m.Changes(); len(r.Caches) != 0 || r.Incomplete != "" {
		t.Errorf("nil mark's Changes = %+v, want none", r)
	}
	m.Close()
}

func write(t *testing.T, path, content string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(content), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

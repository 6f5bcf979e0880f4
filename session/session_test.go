package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/search"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// TestNewBuildsTheCatalogAndCloseEndsIt: a session registers the whole
// catalog plus the extra tools, dispatches calls, runs what registered to
// stop at close the last first, once, and then starts no more tasks.
func TestNewBuildsTheCatalogAndCloseEndsIt(t *testing.T) {
	var order []int
	extra := func(env catalog.Env) []toolbridge.Tool {
		env.OnClose(func() { order = append(order, 1) })
		env.OnClose(func() { order = append(order, 2) })
		return []toolbridge.Tool{toolbridge.Define(toolbridge.Spec{Name: "extra", InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{})},
			func(context.Context, struct{}) (toolbridge.Result, error) {
				return toolbridge.Result{Text: "extra ran"}, nil
			})}
	}
	s, err := New(Options{Roots: []string{t.TempDir()}, ExtraTools: extra})
	if err != nil {
		t.Fatal(err)
	}
	names := s.Registry.Names()
	for _, want := range []string{"read_file", "edit", "shell_run", "todo_add", "extra"} {
		if !slices.Contains(names, want) {
			t.Errorf("session tools lack %s: %v", want, names)
		}
	}
	if env := s.Registry.Dispatch(context.Background(), toolbridge.Call{Name: "extra", Input: json.RawMessage(`{}`)}); env.Text != "extra ran" {
		t.Errorf("Dispatch(extra) = %+v", env)
	}
	s.Close()
	s.Close()
	if !slices.Equal(order, []int{2, 1}) {
		t.Errorf("close order = %v, want [2 1] once", order)
	}
	env := s.Registry.Dispatch(context.Background(), toolbridge.Call{Name: "shell_run", Input: json.RawMessage(`{"command":"true"}`)})
	if env.OK {
		t.Errorf("shell_run after Close = %+v, want a refusal", env)
	}
}

// TestApplyReportsMissingFolders: Apply keeps the settings and names the
// approved paths that do not exist.
func TestApplyReportsMissingFolders(t *testing.T) {
	s, err := New(Options{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var cfg settings.Settings
	cfg.Read.ApprovedPaths = []string{"/no/such/folder"}
	cfg.Shell.Program = "/bin/sh"
	if missing := s.Apply(cfg); !slices.Equal(missing, []string{"/no/such/folder"}) {
		t.Errorf("Apply missing = %v, want the approved path", missing)
	}
	if got := s.Settings().Shell.Program; got != "/bin/sh" {
		t.Errorf("Settings().Shell.Program = %q after Apply", got)
	}
}

// TestNewFailsWithoutARoot: a session without a workspace folder is an
// error, and nothing is left running.
func TestNewFailsWithoutARoot(t *testing.T) {
	if s, err := New(Options{Roots: []string{t.TempDir() + "/missing"}}); err == nil {
		s.Close()
		t.Fatal("New with a missing root succeeded")
	}
}

// TestFileIndexEndsWithTheSession: with FileIndex, grep answers from the
// folder's index; Close stops the index's goroutines (none is left behind)
// and closes its inotify descriptors.
func TestFileIndexEndsWithTheSession(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A first session starts what lives as long as the process (the
	// signal loop, the watch on the toolchains' caches); count from after
	// it.
	if s, err := New(Options{Roots: []string{dir}}); err == nil {
		s.Close()
	}
	sandbox.WatchCaches([]sandbox.Root{{Path: dir, Why: "test", Cache: true}}).Close()
	before := runtime.NumGoroutine()
	fdsBefore := openFDs(t)
	for range 3 {
		s, err := New(Options{Roots: []string{dir}, FileIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		indexes := s.FileIndexes()
		if len(indexes) != 1 {
			t.Fatalf("FileIndexes() = %d indexes, want 1", len(indexes))
		}
		want := search.IndexReady
		if runtime.GOOS != "linux" {
			want = search.IndexWalking
		}
		if st := indexes[0].Wait(context.Background()); st.State != want {
			t.Fatalf("index: %v, want %s", st, want)
		}
		env := s.Registry.Dispatch(context.Background(), toolbridge.Call{Name: "grep", Input: json.RawMessage(`{"pattern":"needle"}`)})
		if data, _ := env.Data.(map[string]any); !env.OK || data["index"] != string(want) {
			t.Errorf("grep = %+v, want an answer with index %s", env, want)
		}
		s.Close()
		if st := indexes[0].Status(); st.State != search.IndexClosed {
			t.Errorf("index after Close: %v", st)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	if n := openFDs(t); fdsBefore >= 0 && n > fdsBefore {
		t.Errorf("%d open file descriptors after Close, %d before", n, fdsBefore)
	}
}

// TestSearchIndexSetting: search.index false closes the folder's index
// (FileIndexStatus says why), true starts a new one, while greps run all
// along; without Options.FileIndex the setting starts none; after Close
// none starts.
func TestSearchIndexSetting(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	no, yes := false, true
	var off, on settings.Settings
	off.Search.Index, on.Search.Index = &no, &yes
	s, err := New(Options{Roots: []string{dir}, FileIndex: true, Settings: off})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.FileIndexes()); n != 0 {
		t.Fatalf("search.index false at start: %d indexes, want none", n)
	}
	if st := s.FileIndexStatus(); len(st) != 1 || st[0].State != search.IndexWalking || st[0].Reason != "the setting search.index is false" {
		t.Errorf("FileIndexStatus() with search.index false = %v", st)
	}
	stop := make(chan struct{})
	greps := make(chan error)
	go func() {
		for {
			select {
			case <-stop:
				close(greps)
				return
			default:
			}
			env := s.Registry.Dispatch(context.Background(), toolbridge.Call{Name: "grep", Input: json.RawMessage(`{"pattern":"needle"}`)})
			if !env.OK {
				greps <- fmt.Errorf("grep = %s %q", env.Code, env.Text)
			}
		}
	}()
	var last *search.Index
	for range 5 {
		s.Apply(on)
		indexes := s.FileIndexes()
		if len(indexes) != 1 || indexes[0] == last {
			t.Fatalf("search.index true: FileIndexes() = %v, want one new index", indexes)
		}
		last = indexes[0]
		s.Apply(off)
		if st := last.Status(); st.State != search.IndexClosed {
			t.Errorf("index after search.index false: %v, want closed", st)
		}
	}
	close(stop)
	for err := range greps {
		t.Error(err)
	}
	s.Apply(on)
	s.Close()
	s.Apply(on)
	if n := len(s.FileIndexes()); n != 0 {
		t.Errorf("search.index true after Close: %d indexes, want none", n)
	}

	plain, err := New(Options{Roots: []string{dir}, Settings: on})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if n, st := len(plain.FileIndexes()), plain.FileIndexStatus(); n != 0 || st != nil {
		t.Errorf("without Options.FileIndex: %d indexes, status %v; want none", n, st)
	}
}

// openFDs counts this process's open file descriptors (-1 where /proc is
// missing).
func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// TestNoJournalNoChange: when the journal of changes cannot be opened (the
// state folder is a file here), an edit is refused and nothing is written,
// unless changes.required is false — then it is made and says it cannot
// be reverted.
func TestNoJournalNoChange(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(state, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", state)
	no := false
	var optional settings.Settings
	optional.Changes.Required = &no
	for _, tc := range []struct {
		name     string
		settings settings.Settings
		wantOK   bool
		want     string
	}{
		{"required by default", settings.Settings{}, false, "changes.required"},
		{"changes.required false", optional, true, "cannot take this change back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(file, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := New(Options{Roots: []string{dir}, Settings: tc.settings})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Journal != nil {
				t.Fatal("a journal opened under a state folder that is a file")
			}
			env := s.Registry.Dispatch(context.Background(), toolbridge.Call{Name: "edit", Input: json.RawMessage(`{"file_path":"a.txt","search":"old","replace":"new"}`)})
			if env.OK != tc.wantOK || !strings.Contains(env.Text, tc.want) {
				t.Errorf("edit = ok %v %q, want ok %v and %q", env.OK, env.Text, tc.wantOK, tc.want)
			}
			b, _ := os.ReadFile(file)
			if changed := string(b) == "new\n"; changed != tc.wantOK {
				t.Errorf("file holds %q after the edit (ok %v)", b, env.OK)
			}
		})
	}
}

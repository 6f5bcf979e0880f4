package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestFileIndexSeesEveryChange runs the real server on a folder, waits for
// its file index, then creates, changes, renames, moves and deletes files
// (and opens, edits and closes unsaved buffers) between calls, checking
// that every grep and search_files answer, served from the index, is
// current.
func TestFileIndexSeesEveryChange(t *testing.T) {
	root := writeFiles(t, map[string]string{
		".gitignore":   "*.log\nout/\n",
		"a.go":         "package a // needle\n",
		"pkg/b.go":     "package b\n",
		"pkg/c.log":    "needle\n",
		"out/gen.go":   "needle\n",
		"dir/x/y.go":   "needle\n",
		"dir/x/z.txt":  "hay\n",
		"docs/read.md": "hay\n",
	})
	s := start(t, root, sessionOptions{progress: true})
	ctx := ctxT(t)

	// answer greps "needle" (files mode) and lists every file, and checks
	// that the index answered both.
	answer := func(step string) (matches, files []string) {
		t.Helper()
		g := s.exec(ctx, "grep", map[string]any{"pattern": "needle", "output_mode": "files"})
		f := s.exec(ctx, "search_files", map[string]any{"pattern": "*"})
		for _, env := range [](map[string]any){g.Data.(map[string]any), f.Data.(map[string]any)} {
			if env["index"] != "ready" {
				t.Fatalf("%s: data.index = %v, want ready (answered from the index)", step, env["index"])
			}
		}
		lines := func(text string) []string {
			if strings.HasPrefix(text, "No ") {
				return nil
			}
			return strings.Split(text, "\n")
		}
		return lines(g.Text), lines(f.Text)
	}
	// check answers right after the step, then again once the index's
	// content filter has read the changed files (grep then reads only the
	// files the filter keeps).
	check := func(step string, wantMatches, wantFiles []string) {
		t.Helper()
		for _, when := range []string{"", " (contents read)"} {
			matches, files := answer(step)
			if d := cmp.Diff(wantMatches, matches); d != "" {
				t.Errorf("%s%s: grep (-want +got):\n%s", step, when, d)
			}
			if d := cmp.Diff(wantFiles, files); d != "" {
				t.Errorf("%s%s: search_files (-want +got):\n%s", step, when, d)
			}
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				g := s.exec(ctx, "grep", map[string]any{"pattern": "no such text", "output_mode": "files"})
				if pending := g.Data.(map[string]any)["filter_pending"]; pending == 0.0 {
					break
				} else if time.Now().After(deadline) {
					t.Fatalf("%s: the content filter has %v files to read after 30 s", step, pending)
				}
			}
		}
	}
	waitIndexReady(t, s)
	check("start",
		[]string{"a.go", "dir/x/y.go"},
		[]string{".gitignore", "a.go", "dir/x/y.go", "dir/x/z.txt", "docs/read.md", "pkg/b.go"})

	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(s.path(rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pkg/new.go", "needle\n")
	write("pkg/skip.log", "needle\n")
	check("create",
		[]string{"a.go", "dir/x/y.go", "pkg/new.go"},
		[]string{".gitignore", "a.go", "dir/x/y.go", "dir/x/z.txt", "docs/read.md", "pkg/b.go", "pkg/new.go"})

	write("a.go", "package a\n")
	write("docs/read.md", "needle\n")
	check("change",
		[]string{"dir/x/y.go", "docs/read.md", "pkg/new.go"},
		[]string{".gitignore", "a.go", "dir/x/y.go", "dir/x/z.txt", "docs/read.md", "pkg/b.go", "pkg/new.go"})

	if err := os.Rename(s.path("pkg/new.go"), s.path("pkg/renamed.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(s.path("dir/x"), s.path("docs/x")); err != nil {
		t.Fatal(err)
	}
	check("rename file, move folder",
		[]string{"docs/read.md", "docs/x/y.go", "pkg/renamed.go"},
		[]string{".gitignore", "a.go", "docs/read.md", "docs/x/y.go", "docs/x/z.txt", "pkg/b.go", "pkg/renamed.go"})

	if err := os.RemoveAll(s.path("docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.path("pkg/renamed.go")); err != nil {
		t.Fatal(err)
	}
	check("delete", nil, []string{".gitignore", "a.go", "pkg/b.go"})

	// The editor's unsaved buffers: a new file, a changed one, then closed.
	u := s.open("pkg/unsaved.go", "package b // needle\n", 1)
	ub := s.open("pkg/b.go", "package b\n", 1)
	s.change(ub, rng(0, 9, 0, 9), " // needle", "package b // needle\n")
	check("unsaved buffers",
		[]string{"pkg/b.go", "pkg/unsaved.go"},
		[]string{".gitignore", "a.go", "pkg/b.go", "pkg/unsaved.go"})
	for _, doc := range []uri.URI{u, ub} {
		if err := s.server.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}}); err != nil {
			t.Fatal(err)
		}
	}
	check("buffers closed", nil, []string{".gitignore", "a.go", "pkg/b.go"})

	// Work-done progress, shown when the index was still being built at
	// initialized (a folder this small may be done by then), ends.
	s.ed.mu.Lock()
	progress := slices.Clone(s.ed.progress)
	s.ed.mu.Unlock()
	if begins, ends := countOf(progress, "begin"), countOf(progress, "end"); begins != ends {
		t.Errorf("work-done progress = %q: %d begins, %d ends", progress, begins, ends)
	}
	if !strings.Contains(s.stderrText(), "file index ready") {
		t.Errorf("the server log does not say the index is ready:\n%s", s.stderrText())
	}
}

// waitIndexReady waits until search_files answers from the file index.
func waitIndexReady(t *testing.T, s *session) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		env := s.exec(ctxT(t), "search_files", map[string]any{"pattern": "*"})
		if env.Data.(map[string]any)["index"] == "ready" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file index is not ready after 30 s: %v", env.Data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSearchIndexSettingAndStatus runs the real server and `whale-ls
// settings` next to it: settings prints the status line of the server's
// file index (from the folder or a subfolder, or with --folder);
// search.index false, sent at run time or at initialization, closes the
// index (grep says it walked, settings says why), true brings it back;
// with no server running, settings says so.
func TestSearchIndexSettingAndStatus(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.go": "package a // needle\n", "sub/b.go": "package b\n"})
	runtimeDir := t.TempDir()
	settingsOf := func(runtimeDir, dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(whaleBinary(t), append([]string{"settings"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("whale-ls settings %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	grepIndex := func(s *session) any {
		t.Helper()
		env := s.exec(ctxT(t), "grep", map[string]any{"pattern": "needle"})
		if !env.OK {
			t.Fatalf("grep = %s %q", env.Code, env.Text)
		}
		return env.Data.(map[string]any)["index"]
	}
	setIndex := func(s *session, on bool) {
		t.Helper()
		err := s.server.DidChangeConfiguration(ctxT(t), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(mustJSON(t, map[string]any{
			"whale": map[string]any{"search": map[string]any{"index": on}},
		}))})
		if err != nil {
			t.Fatal(err)
		}
	}
	ready := "  file index of " + root + " ready: 2 files in 2 folders"
	off := "  file index of " + root + " is off: the setting search.index is false; searches walk the folder"

	s := start(t, root, sessionOptions{runtimeDir: runtimeDir})
	waitIndexReady(t, s)
	for _, tc := range []struct {
		dir  string
		args []string
	}{{root, nil}, {filepath.Join(root, "sub"), nil}, {t.TempDir(), []string{"--folder", filepath.Join(root, "sub")}}} {
		out := settingsOf(runtimeDir, tc.dir, tc.args...)
		if !strings.Contains(out, "The whale-ls language server of "+root+" (pid ") || !strings.Contains(out, ready) {
			t.Errorf("whale-ls settings %q in %s does not show the server's index %q:\n%s", tc.args, tc.dir, ready, out)
		}
	}

	setIndex(s, false)
	if got := grepIndex(s); got != "none" {
		t.Errorf("grep with search.index false: data.index = %v, want none (walked)", got)
	}
	if out := settingsOf(runtimeDir, root); !strings.Contains(out, off) {
		t.Errorf("whale-ls settings with search.index false lacks %q:\n%s", off, out)
	}
	if !strings.Contains(s.stderrText(), "file indexes closed: search.index is false") {
		t.Errorf("the server log does not say the index was closed:\n%s", s.stderrText())
	}
	setIndex(s, true)
	waitIndexReady(t, s)
	if got := grepIndex(s); got != "ready" {
		t.Errorf("grep with search.index back on: data.index = %v, want ready", got)
	}
	if out := settingsOf(runtimeDir, root); !strings.Contains(out, ready) {
		t.Errorf("whale-ls settings with search.index back on lacks %q:\n%s", ready, out)
	}

	// Off from the start.
	offRuntime := t.TempDir()
	s2 := start(t, root, sessionOptions{runtimeDir: offRuntime, initOptions: map[string]any{"search.index": false}})
	if got := grepIndex(s2); got != "none" {
		t.Errorf("grep with search.index false at initialization: data.index = %v, want none", got)
	}
	if out := settingsOf(offRuntime, root); !strings.Contains(out, off) {
		t.Errorf("whale-ls settings with search.index false at initialization lacks %q:\n%s", off, out)
	}

	want := "No whale-ls language server is running for " + root + "; its status (the file index of each workspace folder) shows here once an editor has started whale-ls on that folder."
	if out := settingsOf(t.TempDir(), root); !strings.Contains(out, want) {
		t.Errorf("whale-ls settings with no server running lacks %q:\n%s", want, out)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

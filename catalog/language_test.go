package catalog

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// fakeLanguage answers like an editor's language server: diagnostics from
// a function of the call number, canned locations and rename edits.
type fakeLanguage struct {
	mu          sync.Mutex
	calls       int
	diagnostics func(call int) []toolbridge.Diagnostic // nil: block until ctx ends
	published   func(call int) map[string]int64        // nil: the editor does not count
	locations   []toolbridge.Location
	renames     []toolbridge.FileEdits
	asked       []toolbridge.Pos
}

func (f *fakeLanguage) Diagnostics(ctx context.Context, paths []string) (toolbridge.Problems, error) {
	f.mu.Lock()
	f.calls++
	n, fn, pub := f.calls, f.diagnostics, f.published
	f.mu.Unlock()
	if fn == nil {
		<-ctx.Done()
		return toolbridge.Problems{}, ctx.Err()
	}
	p := toolbridge.Problems{Items: fn(n)}
	if pub != nil {
		p.Published = pub(n)
	}
	return p, nil
}

func (f *fakeLanguage) at(p toolbridge.Pos) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, p)
}

func (f *fakeLanguage) Definition(_ context.Context, _ string, p toolbridge.Pos) ([]toolbridge.Location, error) {
	f.at(p)
	return f.locations, nil
}

func (f *fakeLanguage) References(_ context.Context, _ string, p toolbridge.Pos) ([]toolbridge.Location, error) {
	f.at(p)
	return f.locations, nil
}

func (f *fakeLanguage) Hover(context.Context, string, toolbridge.Pos) (string, error) {
	return "func Open(name string) (*Store, error)", nil
}

func (f *fakeLanguage) DocumentSymbols(context.Context, string) ([]toolbridge.Symbol, error) {
	return []toolbridge.Symbol{{Name: "Store", Kind: "struct", Children: []toolbridge.Symbol{{Name: "Open", Kind: "method", Start: toolbridge.Pos{Line: 4}}}}}, nil
}

func (f *fakeLanguage) WorkspaceSymbols(context.Context, string) ([]toolbridge.Symbol, error) {
	return nil, nil
}

func (f *fakeLanguage) Rename(_ context.Context, _ string, p toolbridge.Pos, _ string) ([]toolbridge.FileEdits, error) {
	f.at(p)
	return f.renames, nil
}

// languageTools registers the language tools over d (with d.Language set).
func languageTools(d *testDeps) []toolbridge.Tool {
	lang := d.language
	l := Lang{Workspace: d.Workspace, Editor: d.Editor, Language: lang}
	c := NewCommitter(CommitOptions{Workspace: d.Workspace, Editor: d.Editor, Reads: d.Reads, Settings: d.settings, Journal: d.Journal, Language: lang})
	return []toolbridge.Tool{Problems(l), Symbols(l), DocumentSymbols(l), Definition(l), References(l), Hover(l), Rename(l, c), Edit(c)}
}

func langWorkspace(t *testing.T, files map[string]string, f *fakeLanguage, waitMs int) (*testDeps, *toolbridge.Registry, string) {
	t.Helper()
	return testWorkspaceWith(t, files, func(d *testDeps, root string) {
		var cfg settings.Settings
		cfg.Edits.ProblemsWaitMs = &waitMs
		d.SetSettings(cfg)
		d.language = f
		withJournal(t, d, root)
	}, languageTools)
}

// TestEditReportsOnlyNewProblems: the problem that was there before the
// edit (now on another line) is not repeated; the new one is.
func TestEditReportsOnlyNewProblems(t *testing.T) {
	var root string
	old := func() toolbridge.Diagnostic {
		return toolbridge.Diagnostic{Path: root + "/a.go", Severity: toolbridge.SeverityWarning, Message: "x declared and not used", Source: "compiler"}
	}
	f := &fakeLanguage{diagnostics: func(call int) []toolbridge.Diagnostic {
		if call == 1 {
			return []toolbridge.Diagnostic{old()}
		}
		moved := old()
		moved.Start.Line = 3
		return []toolbridge.Diagnostic{moved, {Path: root + "/a.go", Start: toolbridge.Pos{Line: 1}, Severity: toolbridge.SeverityError, Message: "undefined: y", Source: "compiler"}}
	}}
	_, r, dir := langWorkspace(t, map[string]string{"a.go": "package a\nvar z = 1\n"}, f, 2000)
	root = dir
	env := call(t, r, "edit", map[string]any{"file_path": "a.go", "search": "var z = 1", "replace": "var z = y"})
	if !env.OK || !strings.Contains(env.Text, "The change introduced 1 problem:\n  a.go:2: error: undefined: y (compiler)") || strings.Contains(env.Text, "not used") {
		t.Errorf("edit = %s %q, want only the new problem", env.Code, env.Text)
	}
	f.mu.Lock()
	fixed := f.calls + 1 // the baseline of the next edit still has the error; the edit fixes it
	f.diagnostics = func(call int) []toolbridge.Diagnostic {
		if call == fixed {
			return []toolbridge.Diagnostic{{Path: root + "/a.go", Start: toolbridge.Pos{Line: 1}, Severity: toolbridge.SeverityError, Message: "undefined: y", Source: "compiler"}}
		}
		return nil
	}
	f.mu.Unlock()
	if env := call(t, r, "edit", map[string]any{"file_path": "a.go", "search": "var z = y", "replace": "var z = 2"}); !strings.Contains(env.Text, "No new problems in the changed files.") {
		t.Errorf("clean edit = %q", env.Text)
	}
	f.mu.Lock()
	f.diagnostics = func(int) []toolbridge.Diagnostic { return nil }
	f.mu.Unlock()
	if env := call(t, r, "edit", map[string]any{"file_path": "a.go", "search": "var z = 2", "replace": "var z = 3"}); !strings.Contains(env.Text, "they may not reflect the change yet") {
		t.Errorf("edit whose diagnostics never changed = %q, want it to say they may be stale", env.Text)
	}
}

// TestProblemsSettleOnAPublication: from an editor that counts the
// publications of each file's diagnostics, a clean edit of a clean file is
// reported as such as soon as a new publication was counted, well before
// the bound; without a new publication the bound is waited out and the
// note says the diagnostics may be stale.
func TestProblemsSettleOnAPublication(t *testing.T) {
	var root string
	var mu sync.Mutex
	count := int64(1)
	f := &fakeLanguage{diagnostics: func(int) []toolbridge.Diagnostic { return nil },
		published: func(int) map[string]int64 {
			mu.Lock()
			defer mu.Unlock()
			return map[string]int64{root + "/a.go": count}
		}}
	d, r, dir := langWorkspace(t, map[string]string{"a.go": "package a\nvar z = 1\n"}, f, 5000)
	root = dir
	f.mu.Lock()
	f.diagnostics = func(call int) []toolbridge.Diagnostic {
		if call == 2 { // the first reading after the commit: the language server answered
			mu.Lock()
			count++
			mu.Unlock()
		}
		return nil
	}
	f.mu.Unlock()
	t0 := time.Now()
	env := call(t, r, "edit", map[string]any{"file_path": "a.go", "search": "var z = 1", "replace": "var z = 2"})
	if !strings.Contains(env.Text, "No new problems in the changed files.\n") {
		t.Errorf("clean edit = %q, want no new problems", env.Text)
	}
	if took := time.Since(t0); took > 4*time.Second {
		t.Errorf("the clean edit took %s: it waited for the bound although a publication was counted", took)
	}
	f.mu.Lock()
	f.diagnostics = func(int) []toolbridge.Diagnostic { return nil }
	f.mu.Unlock()
	var cfg settings.Settings
	short := 300
	cfg.Edits.ProblemsWaitMs = &short
	d.SetSettings(cfg)
	if env := call(t, r, "edit", map[string]any{"file_path": "a.go", "search": "var z = 2", "replace": "var z = 3"}); !strings.Contains(env.Text, "they may not reflect the change yet") {
		t.Errorf("edit with no publication counted = %q, want it to say they may be stale", env.Text)
	}
}

// TestProblemsWaitIsBounded: an editor that never answers diagnostics
// delays nothing past the bound and reports nothing.
func TestProblemsWaitIsBounded(t *testing.T) {
	f := &fakeLanguage{} // blocks
	_, r, _ := langWorkspace(t, map[string]string{"a.go": "package a\n"}, f, 200)
	env := call(t, r, "edit", map[string]any{"file_path": "a.go", "search": "package a", "replace": "package b"})
	if !env.OK || strings.Contains(env.Text, "problem") {
		t.Errorf("edit with a silent editor = %s %q, want applied without a problems note", env.Code, env.Text)
	}
}

// TestPositionTools: a symbol on a line becomes a position; an ambiguous
// one lists its occurrences; results name path:line with the line's text.
func TestPositionTools(t *testing.T) {
	var root string
	f := &fakeLanguage{diagnostics: func(int) []toolbridge.Diagnostic { return nil }}
	_, r, dir := langWorkspace(t, map[string]string{"a.go": "package a\n\nfunc Open(o Opener) { o.Open() }\n", "b.go": "package a\n\nvar _ = Open\n"}, f, 0)
	root = dir
	f.locations = []toolbridge.Location{{Path: root + "/b.go", Start: toolbridge.Pos{Line: 2, Col: 8}}, {Path: root + "/a.go", Start: toolbridge.Pos{Line: 2, Col: 5}}}
	env := call(t, r, "references", map[string]any{"file_path": "a.go", "line": 3, "symbol": "Open"})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "2 times") || !strings.Contains(env.Text, "occurrence") {
		t.Fatalf("ambiguous references = %s %q", env.Code, env.Text)
	}
	env = call(t, r, "references", map[string]any{"file_path": "a.go", "line": 3, "symbol": "Open", "occurrence": 1})
	if !env.OK || env.Text != "2 references to Open:\na.go:3: func Open(o Opener) { o.Open() }\nb.go:3: var _ = Open" {
		t.Errorf("references = %s %q", env.Code, env.Text)
	}
	if want := []toolbridge.Pos{{Line: 2, Col: 5}}; !slices.Equal(f.asked, want) {
		t.Errorf("asked at %v, want %v (Opener is not Open)", f.asked, want)
	}
	if env := call(t, r, "definition", map[string]any{"file_path": "a.go", "line": 2, "symbol": "Open"}); env.Code != toolbridge.CodeNotFound {
		t.Errorf("definition of a symbol not on the line = %s %q", env.Code, env.Text)
	}
	if env := call(t, r, "hover", map[string]any{"file_path": "b.go", "line": 3, "symbol": "Open"}); !strings.Contains(env.Text, "func Open") {
		t.Errorf("hover = %q", env.Text)
	}
	if env := call(t, r, "document_symbols", map[string]any{"file_path": "a.go"}); env.Text != "a.go:\n  1 struct Store\n    5 method Open" {
		t.Errorf("document_symbols = %q", env.Text)
	}
}

// TestRenameAppliesThroughTheCommitPath: the editor's rename edits of two
// files are applied all at once and journaled.
func TestRenameAppliesThroughTheCommitPath(t *testing.T) {
	f := &fakeLanguage{}
	d, r, root := langWorkspace(t, map[string]string{"a.go": "package a\n\nfunc Open() {}\n", "b.go": "package a\n\nvar _ = Open\n"}, f, 0)
	f.renames = []toolbridge.FileEdits{
		{Path: root + "/a.go", Base: "package a\n\nfunc Open() {}\n", Edits: []toolbridge.TextEdit{{Start: toolbridge.Pos{Line: 2, Col: 5}, End: toolbridge.Pos{Line: 2, Col: 9}, NewText: "OpenStore"}}},
		{Path: root + "/b.go", Base: "package a\n\nvar _ = Open\n", Edits: []toolbridge.TextEdit{{Start: toolbridge.Pos{Line: 2, Col: 8}, End: toolbridge.Pos{Line: 2, Col: 12}, NewText: "OpenStore"}}},
	}
	env := call(t, r, "rename", map[string]any{"file_path": "a.go", "line": 3, "symbol": "Open", "new_name": "OpenStore"})
	if !env.OK || !strings.HasPrefix(env.Text, "Renamed Open to OpenStore in 2 files.") {
		t.Fatalf("rename = %s %q", env.Code, env.Text)
	}
	if a, b := readTestFile(t, root, "a.go"), readTestFile(t, root, "b.go"); !strings.Contains(a, "func OpenStore()") || !strings.Contains(b, "var _ = OpenStore") {
		t.Errorf("after the rename a.go = %q, b.go = %q", a, b)
	}
	if entries, _, _ := d.Journal.List("", 0); len(entries) != 1 || entries[0].Tool != "rename" || len(entries[0].Files) != 2 {
		t.Errorf("journal = %+v, want one rename entry of two files", entries)
	}
	writeTestFile(t, root, "b.go", "package a\n")
	if env := call(t, r, "rename", map[string]any{"file_path": "a.go", "line": 3, "symbol": "OpenStore", "new_name": "X"}); env.Code != toolbridge.CodeWriteConflict {
		t.Errorf("rename with stale edits = %s %q, want write_conflict", env.Code, env.Text)
	}
}

// TestLanguageToolsNeedTheCapability: without an editor's language
// features the tools are not in the catalog.
func TestLanguageToolsNeedTheCapability(t *testing.T) {
	d, _, _ := testWorkspace(t, nil)
	names := map[string]bool{}
	for _, tool := range d.all() {
		names[tool.Spec.Name] = true
	}
	for _, n := range []string{"problems", "symbols", "document_symbols", "definition", "references", "hover", "rename"} {
		if names[n] {
			t.Errorf("%s is listed without the editor's language features", n)
		}
	}
	d.language = &fakeLanguage{}
	names = map[string]bool{}
	for _, tool := range d.all() {
		names[tool.Spec.Name] = true
	}
	if !names["rename"] || !names["problems"] {
		t.Error("the language tools are missing with the editor's language features")
	}
}

package acpfront

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openWithFS initializes with an editor that serves fs/* itself (or not)
// and opens session s1.
func (e *editor) openWithFS(serves bool) {
	e.t.Helper()
	e.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"fs": map[string]any{"readTextFile": serves, "writeTextFile": serves}}})
	e.request("session/new", map[string]any{"cwd": e.root, "mcpServers": []any{}})
}

func (e *editor) takeFSCalls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	calls := e.fsCalls
	e.fsCalls = nil
	return calls
}

func (e *editor) buffer(path string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buffers[path]
}

func (e *editor) setBuffer(path, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buffers[path] = text
}

// With EditorFiles and an editor that serves files, reads and writes go
// to the editor's buffers (the disk is left alone) after whale's checks:
// the stale write is merged or refused against what the agent last read,
// the journal has the change, a path outside the workspace never reaches
// the editor.
func TestEditorServesFilesAfterWhalesChecks(t *testing.T) {
	e := startProxyOpts(t, "", func(o *Options) { o.EditorFiles = true })
	e.buffers = map[string]string{}
	e.openWithFS(true)
	path := filepath.Join(e.root, "a.txt")
	os.WriteFile(path, []byte("on disk\n"), 0o644)
	e.setBuffer(path, "one\r\ntwo\r\nthree\r\n")

	_, chunks := e.prompt(req("fs/read_text_file", map[string]any{"path": path, "line": 2, "limit": 1}))
	if want := []string{`ok {"content":"two\n"}`}; !slices.Equal(chunks, want) {
		t.Fatalf("the read answered %q, want %q (line 2 of the editor's buffer)", chunks, want)
	}
	if calls, want := e.takeFSCalls(), []string{"read " + path}; !slices.Equal(calls, want) {
		t.Errorf("the editor got %q, want %q", calls, want)
	}

	// The user changes line 3 in the editor; the agent's change of line 1
	// is merged onto it.
	e.setBuffer(path, "one\ntwo\nTHREE\n")
	_, chunks = e.prompt(req("fs/write_text_file", map[string]any{"path": path, "content": "ONE\ntwo\nthree\n"}))
	if want := []string{"ok {}"}; !slices.Equal(chunks, want) {
		t.Fatalf("the merged write answered %q, want %q", chunks, want)
	}
	if got, want := e.buffer(path), "ONE\ntwo\nTHREE\n"; got != want {
		t.Errorf("after the merged write the editor holds %q, want %q", got, want)
	}
	if calls, want := e.takeFSCalls(), []string{"read " + path, "write " + path}; !slices.Equal(calls, want) {
		t.Errorf("the editor got %q, want %q (whale reads the current text first)", calls, want)
	}
	if got, _ := os.ReadFile(path); string(got) != "on disk\n" {
		t.Errorf("the disk holds %q; the editor, not whale, writes in this mode", got)
	}
	if titles, want := e.journalTitles(), []string{"Fake Agent edited a.txt (+1 −1)"}; !slices.Equal(titles, want) {
		t.Errorf("journal titles %q, want %q: the agent's merged write", titles, want)
	}
	if diffs := e.diffsOf(path, "ONE\ntwo\nTHREE\n"); len(diffs) != 1 || diffs[0]["oldText"] != "one\ntwo\nTHREE\n" {
		t.Errorf("the editor was shown %v, want one diff of the write from the editor's text", diffs)
	}

	// The user changes the line the agent changes too: refused, the
	// editor is not asked to write.
	e.setBuffer(path, "uno\ntwo\nTHREE\n")
	_, chunks = e.prompt(req("fs/write_text_file", map[string]any{"path": path, "content": "Eins\ntwo\nTHREE\n"}))
	if len(chunks) != 1 || !strings.Contains(chunks[0], "read the file again") {
		t.Fatalf("the conflicting write answered %q, want an error telling the agent to read the file again", chunks)
	}
	if calls, want := e.takeFSCalls(), []string{"read " + path}; !slices.Equal(calls, want) {
		t.Errorf("the editor got %q, want %q", calls, want)
	}
	if got := e.buffer(path); got != "uno\ntwo\nTHREE\n" {
		t.Errorf("after the refused write the editor holds %q, want it untouched", got)
	}

	// A path outside the workspace is refused before the editor hears of it.
	outside := filepath.Join(t.TempDir(), "x.txt")
	_, chunks = e.prompt(req("fs/write_text_file", map[string]any{"path": outside, "content": "x\n"}),
		req("fs/read_text_file", map[string]any{"path": outside}))
	if len(chunks) != 2 || !strings.HasPrefix(chunks[0], "error") || !strings.HasPrefix(chunks[1], "error") {
		t.Fatalf("the writes outside the workspace answered %q, want two errors", chunks)
	}
	if calls := e.takeFSCalls(); len(calls) != 0 {
		t.Errorf("the editor got %q for a path outside the workspace", calls)
	}

	// A new file: the editor cannot read it, whale journals a creation.
	fresh := filepath.Join(e.root, "new.txt")
	_, chunks = e.prompt(req("fs/write_text_file", map[string]any{"path": fresh, "content": "hello\n"}))
	if want := []string{"ok {}"}; !slices.Equal(chunks, want) {
		t.Fatalf("the new file's write answered %q, want %q", chunks, want)
	}
	if got := e.buffer(fresh); got != "hello\n" {
		t.Errorf("the editor holds %q for the new file", got)
	}
	if titles := e.journalTitles(); len(titles) != 2 {
		t.Errorf("journal titles %q, want 2 (the merged write, the new file)", titles)
	}

	// A file on disk the editor does not read: whale cannot tell what the
	// write replaces, so it refuses it.
	unread := filepath.Join(e.root, "unread.txt")
	os.WriteFile(unread, []byte("kept\n"), 0o644)
	e.takeFSCalls()
	_, chunks = e.prompt(req("fs/write_text_file", map[string]any{"path": unread, "content": "x\n"}))
	if len(chunks) != 1 || !strings.Contains(chunks[0], "the editor could not read") {
		t.Fatalf("the write of a file the editor cannot read answered %q", chunks)
	}
	if calls, want := e.takeFSCalls(), []string{"read " + unread}; !slices.Equal(calls, want) {
		t.Errorf("the editor got %q, want %q", calls, want)
	}
}

// EditorFiles with an editor that does not serve fs/* itself: whale serves
// the files, as without the setting.
func TestEditorFilesNeedTheEditorsCapabilities(t *testing.T) {
	e := startProxyOpts(t, "", func(o *Options) { o.EditorFiles = true })
	e.buffers = map[string]string{}
	e.openWithFS(false)
	path := filepath.Join(e.root, "a.txt")
	_, chunks := e.prompt(req("fs/write_text_file", map[string]any{"path": path, "content": "hi\n"}))
	if want := []string{"ok {}"}; !slices.Equal(chunks, want) {
		t.Fatalf("the write answered %q, want %q", chunks, want)
	}
	if got, _ := os.ReadFile(path); string(got) != "hi\n" {
		t.Errorf("the disk holds %q, want whale's write", got)
	}
	if calls := e.takeFSCalls(); len(calls) != 0 {
		t.Errorf("the editor got %q though it did not advertise fs", calls)
	}
}

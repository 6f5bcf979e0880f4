package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// numberedLines is a file of n lines "line 000 = 0", each an edit target
// of its own.
func numberedLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %03d = 0\n", i)
	}
	return b.String()
}

func editLine(i int) map[string]any {
	return map[string]any{"file_path": "p.txt", "search": fmt.Sprintf("line %03d = 0", i), "replace": fmt.Sprintf("line %03d = 1", i)}
}

// parallelEdits sends n edit calls at once, one per line, and fails the
// test for each that did not apply.
func parallelEdits(t *testing.T, s *session, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			env := s.exec(ctxT(t), "edit", editLine(i))
			if !env.OK {
				t.Errorf("edit of line %d = %s %q, want it applied", i, env.Code, env.Text)
			}
		})
	}
	wg.Wait()
}

// TestParallelEditsOfAClosedFile: 100 edit calls in flight at once, each
// changing its own line of one file on disk, all apply — each is planned
// on the text the previous one left.
func TestParallelEditsOfAClosedFile(t *testing.T) {
	const n = 100
	root := writeFiles(t, map[string]string{"p.txt": numberedLines(n)})
	s := start(t, root, sessionOptions{})
	parallelEdits(t, s, n)
	if got, want := diskText(t, s, "p.txt"), strings.ReplaceAll(numberedLines(n), "= 0", "= 1"); got != want {
		t.Errorf("p.txt after %d parallel edits lost %d of them", n, strings.Count(got, "= 0"))
	}
}

// TestParallelEditsOfAnOpenDocument: the same 100 edits of a document open
// in the editor are applied one after another, each pinned to the version
// the previous one produced (1 → 101) and verified before the next.
func TestParallelEditsOfAnOpenDocument(t *testing.T) {
	const n = 100
	root := writeFiles(t, map[string]string{"p.txt": "on disk\n"})
	s := start(t, root, sessionOptions{})
	u := s.open("p.txt", numberedLines(n), 1)
	parallelEdits(t, s, n)
	got, version := s.ed.text(u)
	if want := strings.ReplaceAll(numberedLines(n), "= 0", "= 1"); got != want || version != n+1 {
		t.Errorf("buffer after %d parallel edits: version %d (want %d), %d edits missing", n, version, n+1, strings.Count(got, "= 0"))
	}
	s.ed.mu.Lock()
	var versions []int
	for _, raw := range s.ed.applied {
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					TextDocument struct{ Version int } `json:"textDocument"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		json.Unmarshal(raw, &p)
		versions = append(versions, p.Edit.DocumentChanges[0].TextDocument.Version)
	}
	s.ed.mu.Unlock()
	sort.Ints(versions)
	for i, v := range versions {
		if v != i+1 {
			t.Fatalf("applyEdit versions = %v, want each of 1…%d once", versions, n)
		}
	}
	if got := diskText(t, s, "p.txt"); got != "on disk\n" {
		t.Errorf("disk = %q: edits of an open document belong in the buffer", got)
	}
}

// TestCLIProcessesAndServerEditOneFile: 20 `whale-ls call edit` processes
// and 20 edits through a running server change one file at the same time;
// every change reported ok is in the file afterwards.
func TestCLIProcessesAndServerEditOneFile(t *testing.T) {
	const perSide = 20
	root := writeFiles(t, map[string]string{"p.txt": numberedLines(2 * perSide)})
	runtimeDir := t.TempDir()
	s := start(t, root, sessionOptions{runtimeDir: runtimeDir})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok []int
	report := func(i int, applied bool, what string) {
		mu.Lock()
		defer mu.Unlock()
		if applied {
			ok = append(ok, i)
		} else {
			t.Errorf("edit of line %d: %s", i, what)
		}
	}
	for i := range perSide {
		wg.Go(func() {
			input, _ := json.Marshal(editLine(i))
			cmd := exec.Command(whaleBinary(t), "call", "--root", root, "edit", string(input))
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir, "XDG_STATE_HOME="+runtimeDir)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			report(i, err == nil, fmt.Sprintf("whale-ls call: %v\n%s", err, out.String()))
		})
		wg.Go(func() {
			env := s.exec(ctxT(t), "edit", editLine(perSide+i))
			report(perSide+i, env.OK, env.Code+" "+env.Text)
		})
	}
	wg.Wait()
	got := diskText(t, s, "p.txt")
	for _, i := range ok {
		if !strings.Contains(got, fmt.Sprintf("line %03d = 1\n", i)) {
			t.Errorf("the edit of line %d reported ok but is not in the file", i)
		}
	}
	if n := strings.Count(got, "\n"); n != 2*perSide {
		t.Errorf("p.txt has %d lines, want %d:\n%s", n, 2*perSide, got)
	}
}

// TestEditRefusedWhenItsTargetChanged: the model read the file, one edit
// changed line 3, and a second edit still searches for line 3's old text.
// It is refused with what happened — the line changed since the read, by
// another whale edit — and where to look, not with "you read an old
// version".
func TestEditRefusedWhenItsTargetChanged(t *testing.T) {
	root := writeFiles(t, map[string]string{"p.txt": numberedLines(6)})
	s := start(t, root, sessionOptions{})
	if env := s.exec(ctxT(t), "read_file", map[string]any{"file_path": "p.txt"}); !env.OK {
		t.Fatalf("read_file = %s %q", env.Code, env.Text)
	}
	if env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "p.txt", "search": "line 002 = 0", "replace": "line two"}); !env.OK {
		t.Fatalf("first edit = %s %q", env.Code, env.Text)
	}
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "p.txt", "search": "line 002 = 0", "replace": "line 002 = 2"})
	if env.OK || env.Code != "write_conflict" {
		t.Fatalf("second edit = %s %q, want write_conflict", env.Code, env.Text)
	}
	wantText(t, env, "was at line 3 when you read the file", "by another whale edit", "line 3 now holds other text", "re-read line 3")
	if strings.Contains(env.Text, "since it was read") || strings.Contains(env.Text, "old version") {
		t.Errorf("the refusal blames a stale read: %q", env.Text)
	}
	if got := diskText(t, s, "p.txt"); !strings.Contains(got, "line two\n") {
		t.Errorf("p.txt = %q, want the first edit kept", got)
	}
}

// TestSigkilledWriteLeavesOldOrNew kills `whale-ls call write` of a 2 MB
// file at random moments: every time the file is wholly the old or wholly
// the new content. The new content has a name only for the two system calls
// that link and rename it; a kill that lands between them leaves the one
// staging file, and the next write removes it — nothing else is ever left.
func TestSigkilledWriteLeavesOldOrNew(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 100 processes")
	}
	root := t.TempDir()
	contents := [2]string{strings.Repeat("old content line\n", 125_000), strings.Repeat("new content line\n", 125_000)}
	file := filepath.Join(root, "big.txt")
	if err := os.WriteFile(file, []byte(contents[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := whaleBinary(t)
	runtimeDir := t.TempDir()
	write := func(content string) *exec.Cmd {
		input, _ := json.Marshal(map[string]any{"file_path": "big.txt", "content": content})
		cmd := exec.Command(bin, "call", "--root", root, "write", "-")
		cmd.Stdin = bytes.NewReader(input)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
		return cmd
	}
	other := func() string {
		if cur, _ := os.ReadFile(file); string(cur) == contents[0] {
			return contents[1]
		}
		return contents[0]
	}
	entries := func() []string {
		list, _ := os.ReadDir(root)
		var names []string
		for _, e := range list {
			names = append(names, e.Name())
		}
		return names
	}
	// One write to completion gives the time span to aim the kills at.
	began := time.Now()
	if out, err := write(other()).CombinedOutput(); err != nil {
		t.Fatalf("write: %v\n%s", err, out)
	}
	span := time.Since(began)
	const trials = 100
	completed, leftovers := 0, 0
	for trial := range trials {
		cmd := write(other())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kills sweep one uninterrupted run's span evenly: start-up,
		// planning, the write and rename (about a fiftieth of it), the diff.
		delay := span * time.Duration(trial) / trials
		time.Sleep(delay)
		cmd.Process.Kill()
		if cmd.Wait() == nil {
			completed++
		}
		got, err := os.ReadFile(file)
		if err != nil || string(got) != contents[0] && string(got) != contents[1] {
			t.Fatalf("trial %d (killed after %v): the file is neither old nor new (%d bytes, %v)", trial, delay, len(got), err)
		}
		switch names := entries(); {
		case len(names) == 2 && slices.Contains(names, ".big.txt.whale-tmp"):
			leftovers++
			if out, err := write(other()).CombinedOutput(); err != nil {
				t.Fatalf("write after a kill: %v\n%s", err, out)
			}
			if names := entries(); len(names) != 1 {
				t.Fatalf("trial %d: after the next write the folder holds %v, want only big.txt", trial, names)
			}
		case len(names) != 1:
			t.Fatalf("trial %d (killed after %v): the folder holds %v, want only big.txt", trial, delay, names)
		}
	}
	t.Logf("%d trials (kills spread over %v): %d writes finished first, %d kills left the staging file for the next write", trials, span, completed, leftovers)
}

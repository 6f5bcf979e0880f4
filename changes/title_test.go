package changes

import (
	"testing"
)

// TestTitleAndSummary: an entry's line for a person names files relative to
// the workspace folder with their folders, a shell task by its command,
// a revert as such, an ACP agent's write by the agent's name, and no tool
// name or id; the model's summary keeps the
// tool's name and the same paths.
func TestTitleAndSummary(t *testing.T) {
	t.Parallel()
	j := &Journal{o: Options{Root: "/w"}}
	created := func(p string, n int) FileRecord { return FileRecord{Path: p, After: "b", Added: n} }
	deleted := func(p string, n int) FileRecord { return FileRecord{Path: p, Before: "a", Removed: n} }
	edited := func(p string, a, r int) FileRecord {
		return FileRecord{Path: p, Before: "a", After: "b", Added: a, Removed: r}
	}
	for _, tc := range []struct {
		e                   Entry
		wantTitle, wantSumm string
	}{
		{Entry{Meta: Meta{Tool: "edit"}, Files: []FileRecord{edited("/w/src/app/main.go", 2, 1)}},
			"Edited src/app/main.go (+2 −1)", "edit src/app/main.go (+2 -1)"},
		{Entry{Meta: Meta{Tool: "write"}, Files: []FileRecord{created("/w/notes.md", 12)}},
			"Created notes.md (+12)", "write notes.md (+12 -0)"},
		{Entry{Meta: Meta{Tool: "shell_run", Command: "make clean"}, Files: []FileRecord{deleted("/w/build/sub/x.o", 0)}},
			"`make clean` deleted build/sub/x.o", "shell_run `make clean` build/sub/x.o (+0 -0)"},
		{Entry{Meta: Meta{Tool: "shell_run", Command: "gofmt -w . && go generate ./...\necho done"}, Files: []FileRecord{edited("/w/a.go", 1, 1), edited("/w/b/b.go", 2, 2), created("/w/c.go", 3), edited("/w/d.go", 1, 0)}},
			"`gofmt -w . && go generate ./...…` changed a.go, b/b.go and 2 more (+7 −3)", "shell_run `gofmt -w . && go generate ./...…` a.go, b/b.go and 2 more (+7 -3)"},
		{Entry{Meta: Meta{Tool: "shell_run", Command: "echo `date` > d.txt"}, Files: []FileRecord{created("/w/d.txt", 1)}},
			"`` echo `date` > d.txt `` created d.txt (+1)", "shell_run `` echo `date` > d.txt `` d.txt (+1 -0)"},
		{Entry{Meta: Meta{Tool: "changes_revert", RevertOf: []string{"x"}}, Files: []FileRecord{edited("/w/main.go", 1, 2)}},
			"Reverted main.go (+1 −2)", "changes_revert main.go (+1 -2)"},
		{Entry{Meta: Meta{Tool: "apply_patch"}, Files: []FileRecord{edited("/w/a.go", 1, 1), created("/w/b.go", 1)}},
			"Edited a.go and b.go (+2 −1)", "apply_patch a.go and b.go (+2 -1)"},
		{Entry{Meta: Meta{Tool: "fs/write_text_file", Agent: "Gemini CLI"}, Files: []FileRecord{edited("/w/a.go", 1, 1)}},
			"Gemini CLI edited a.go (+1 −1)", "fs/write_text_file a.go (+1 -1)"},
		{Entry{Meta: Meta{Tool: "fs/write_text_file", Agent: "Gemini CLI"}, Files: []FileRecord{created("/w/n.md", 2)}},
			"Gemini CLI created n.md (+2)", "fs/write_text_file n.md (+2 -0)"},
		{Entry{Files: []FileRecord{edited("/elsewhere/x.txt", 1, 1)}},
			"Changed elsewhere/x.txt (+1 −1)", "change elsewhere/x.txt (+1 -1)"},
	} {
		if got := j.Title(tc.e); got != tc.wantTitle {
			t.Errorf("Title(%v) = %q, want %q", tc.e.Meta, got, tc.wantTitle)
		}
		if got := j.summary(tc.e); got != tc.wantSumm {
			t.Errorf("summary(%v) = %q, want %q", tc.e.Meta, got, tc.wantSumm)
		}
	}
}

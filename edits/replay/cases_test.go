package replay

import (
	"context"
	"strings"
	"testing"
)

// tail is lines far from the change, where a stale case adds its line.
const tail = "\nfunc h() {}\n\nfunc i() {}\n\nfunc j() {}\n"

// synthetic is a change of a tab-indented Go file with a blank line, a
// repeated line and a curly quote, written as git writes its diff.
var synthetic = FileChange{
	Commit: "0123456789abcdef",
	Path:   "a/b.go",
	Old:    []byte("package b\n\n// It’s here.\nfunc f() {\n\tx := 1\n\n\treturn\n}\n\nfunc g() {\n\treturn\n}\n" + tail),
	New:    []byte("package b\n\n// It’s here.\nfunc f() {\n\tx := 2\n\ty := x\n\n\treturn\n}\n\nfunc g() {\n\treturn\n}\n" + tail),
	Diff: "diff --git a/a/b.go b/a/b.go\n--- a/a/b.go\n+++ b/a/b.go\n" +
		"@@ -2,7 +2,8 @@ package b\n \n // It’s here.\n func f() {\n-\tx := 1\n+\tx := 2\n+\ty := x\n \n \treturn\n }\n",
}

// TestSyntheticCases runs every case of one hand-written change through
// the real tools: each applies or is refused as it must, and the variants
// that must be refused are there.
func TestSyntheticCases(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	wrong := &Target{Path: "other.txt", Data: []byte("nothing alike\nat all here\n")}
	cases, err := FileCases(synthetic, wrong)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Runner{Dir: t.TempDir()}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	variants := map[string]Outcome{}
	for _, c := range cases {
		r, err := w.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		variants[c.Variant] = r.Outcome
		want := Applied
		if c.Refuse() {
			want = Refused
		}
		if r.Outcome != want {
			t.Errorf("%s: %s (%s), want %s; tool said (%s) %s", c.Name, r.Outcome, r.Detail, want, r.Envelope.Code, r.Envelope.Text)
		}
		if r.NoNextStep {
			t.Errorf("%s: refusal names no next step: %s", c.Name, r.Envelope.Text)
		}
	}
	for _, v := range []string{"unified", "unified_bare", "begin_patch", "edit", "edit_tabs_to_spaces", "edit_indent_shift",
		"mixed_eol_unified", "file_ws_begin_patch", "stale_unified", "conflict_unified", "wrong_file_edit"} {
		if _, ok := variants[v]; !ok {
			t.Errorf("no %s case among %d (variants: %v)", v, len(cases), variants)
		}
	}
}

// TestRunnerCountsWrong: a success with other bytes than wanted, and one
// where a refusal was wanted, are wrong — the replay can fail.
func TestRunnerCountsWrong(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	w, err := Runner{Dir: t.TempDir()}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	files := map[string][]byte{"a.txt": []byte("one\ntwo\n")}
	input := map[string]any{"file_path": "a.txt", "search": "two\n", "replace": "2\n"}
	for _, tc := range []struct {
		name string
		want map[string][]byte
		out  Outcome
	}{
		{"right bytes", map[string][]byte{"a.txt": []byte("one\n2\n")}, Applied},
		{"other bytes", map[string][]byte{"a.txt": []byte("one\nTWO\n")}, Wrong},
		{"had to be refused", nil, Wrong},
	} {
		r, err := w.Run(context.Background(), Case{Name: tc.name, Files: files, Tool: "edit", Input: input, Want: tc.want})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tc.out {
			t.Errorf("Run(%s) = %s (%s), want %s", tc.name, r.Outcome, r.Detail, tc.out)
		}
	}
}

// TestNamesNextStep: the check that a refusal says what to do next.
func TestNamesNextStep(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"search text matches 2 places (lines 4, 9); add surrounding lines to make it unique", true},
		{"a.go does not exist; check the path in the --- line", true},
		{"search text was not found", false},
	} {
		if got := namesNextStep(tc.text); got != tc.want {
			t.Errorf("namesNextStep(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestParseHunks reads git's hunks, their sides and the no-newline mark.
func TestParseHunks(t *testing.T) {
	hs, err := parseHunks("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ head\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].section != "head" {
		t.Fatalf("parseHunks = %+v, want one hunk with section head", hs)
	}
	if got, want := hs[0].side(true), "a\nb"; got != want {
		t.Errorf("old side = %q, want %q", got, want)
	}
	if got, want := hs[0].side(false), "a\nc"; got != want {
		t.Errorf("new side = %q, want %q", got, want)
	}
	if got := strings.Count(bareHeaders("@@ -1 +1 @@ x\n-a\n+b\n"), "@@\n"); got != 1 {
		t.Errorf("bareHeaders left %d bare headers, want 1", got)
	}
}

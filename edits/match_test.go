package edits

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplyTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		text    string
		edit    Edit
		want    string
		repairs []string
		code    string
		lines   []int
	}{
		{name: "exact", text: "a\nb\nc\n", edit: Edit{Search: "b", Replace: "B"}, want: "a\nB\nc\n", lines: []int{2}},
		{name: "crlf in the search is LF", text: "a\nb\n", edit: Edit{Search: "a\r\nb", Replace: "x\r\ny"}, want: "x\ny\n", lines: []int{1}},
		{name: "overlapping exact is ambiguous", text: "aaa", edit: Edit{Search: "aa", Replace: "b"}, code: CodeSearchNotUnique},
		{name: "all non-overlapping", text: "aaaa", edit: Edit{Search: "aa", Replace: "b", All: true}, want: "bb", lines: []int{1, 1}},
		{name: "empty search", text: "a", edit: Edit{Search: "", Replace: "b"}, code: CodeInvalidInput},
		{name: "identical", text: "a", edit: Edit{Search: "a", Replace: "a"}, code: CodeNoChange},
		{name: "rstrip", text: "x  \ny\n", edit: Edit{Search: "x\ny\n", Replace: "z\n"}, want: "z\n", repairs: []string{RepairWhitespaceNormalized}},
		{name: "shift deeper", text: "  a\n    b\n", edit: Edit{Search: "a\n  b\n", Replace: "a\n  c\n"}, want: "  a\n    c\n", repairs: []string{RepairIndentShifted}},
		{name: "shift shallower", text: "a\n  b\n", edit: Edit{Search: "    a\n      b\n", Replace: "    a\n      c\n    d\n"}, want: "a\n  c\nd\n", repairs: []string{RepairIndentShifted}},
		{name: "unescape only when raw fails", text: `s := "a\n"` + "\n", edit: Edit{Search: `"a\n"`, Replace: `"b\n"`}, want: `s := "b\n"` + "\n"},
		{name: "nbsp in file", text: "a\u00a0b\n", edit: Edit{Search: "a b", Replace: "a-b"}, want: "a-b\n", repairs: []string{RepairTypographyNormalized}},
		{name: "em dash in search", text: "x - y\n", edit: Edit{Search: "x \u2014 y", Replace: "x + y"}, want: "x + y\n", repairs: []string{RepairTypographyNormalized}},
		{name: "line numbers with arrow", text: "a\nb\n", edit: Edit{Search: "     1→a\n     2→b", Replace: "     1→a\n     2→c"}, want: "a\nc\n", repairs: []string{RepairLineNumbersStripped}},
		{name: "numbered data is not a prefix", text: "1\tx\n3\ty\n", edit: Edit{Search: "1\tz\n3\ty", Replace: "q"}, code: CodeSearchNotFound},
		{name: "extra final newlines", text: "a\nb", edit: Edit{Search: "b\n\n", Replace: "c\n\n"}, want: "a\nc", repairs: []string{RepairFinalNewlineAdjusted}},
		{name: "replacement ends where it started", text: "ab", edit: Edit{Search: "ab", Replace: "ab\n"}, want: "ab\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply(tc.text, tc.edit)
			if tc.code != "" {
				if CodeOf(err) != tc.code {
					t.Fatalf("Apply(%q, %+v) error = %v, want code %s", tc.text, tc.edit, err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%q, %+v) error: %v", tc.text, tc.edit, err)
			}
			if got.Text != tc.want {
				t.Errorf("Apply(%q, %+v).Text = %q, want %q", tc.text, tc.edit, got.Text, tc.want)
			}
			if diff := cmp.Diff(tc.repairs, got.Repairs); diff != "" {
				t.Errorf("repairs (-want +got):\n%s", diff)
			}
			if tc.lines != nil {
				if diff := cmp.Diff(tc.lines, got.Lines); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestNotUniqueListsLines(t *testing.T) {
	t.Parallel()
	_, err := Apply("x\ny\nx\nz\nx\n", Edit{Search: "x", Replace: "w"})
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != CodeSearchNotUnique {
		t.Fatalf("error = %v, want search_not_unique", err)
	}
	if diff := cmp.Diff([]int{1, 3, 5}, e.Lines); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
	if !strings.Contains(e.Message, "lines 1, 3, 5") || !strings.Contains(e.Message, "all=true") {
		t.Errorf("message %q lacks the lines or the next step", e.Message)
	}
}

func TestNotFoundMakesWhitespaceVisible(t *testing.T) {
	t.Parallel()
	text := "func f() {\n\treturn 1\u00a0\n}\n"
	_, err := Apply(text, Edit{Search: "func f() {\n\treturn 2\n}\n", Replace: "x"})
	if CodeOf(err) != CodeSearchNotFound {
		t.Fatalf("error = %v, want search_not_found", err)
	}
	e, _ := errors.AsType[*Error](err)
	msg := e.Message
	for _, want := range []string{"line 1", `"\treturn 1\u00a0"`, `"\treturn 2"`, "the first line agrees"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not contain %q", msg, want)
		}
	}
}

// A search none of whose lines is in the file names the file's line most
// like its first one, so that the model reads around it; without such a
// line it says to read the file again.
func TestNotFoundNamesTheClosestLine(t *testing.T) {
	t.Parallel()
	text := "package s\n\nfunc Contains(s, substr string) bool {\n\treturn Index(s, substr) >= 0\n}\n\nfunc Count(s, substr string) (n int) {\n\treturn 0\n}\n"
	for _, tc := range []struct {
		search, want string
	}{
		{"func Count(s string, substr string) int {\n\treturn 1\n}", `the line most like its first line is line 7, "func Count(s, substr string) (n int) {". Read the file around line 7 and copy the text exactly.`},
		{"does not exist", `None of its lines is in the file (its first line is "does not exist"). Read the file again and copy the current text exactly.`},
		{"y", `None of its lines is in the file (its first line is "y"). Read the file again`},
	} {
		_, err := Apply(text, Edit{Search: tc.search, Replace: "x"})
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Code != CodeSearchNotFound || !strings.Contains(e.Message, tc.want) {
			t.Errorf("Apply(search %q) = %v, want search_not_found with %q", tc.search, err, tc.want)
		}
	}
}

func TestApplyAllStepIndex(t *testing.T) {
	t.Parallel()
	_, err := ApplyAll(context.Background(), "a b c", []Edit{{Search: "a", Replace: "x"}, {Search: "b", Replace: "y"}, {Search: "q", Replace: "z"}})
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Step != 3 || e.Code != CodeSearchNotFound {
		t.Fatalf("error = %#v, want step 3 search_not_found", err)
	}
}

// FuzzEditSpan checks that an accepted edit changes bytes only inside the
// place the matcher chose, and replaces that place with the replacement.
func FuzzEditSpan(f *testing.F) {
	f.Add("  if ready:\n      run()\n", "if ready:\n    run()", "x", false)
	f.Add("a\nb\na\n", "a", "c", true)
	f.Add("x = “1”\n", "x = \"1\"", "x = 2", false)
	f.Add("     1\tfoo\n", "foo", "bar", false)
	f.Add("kept  \nold\n", "kept\nold\n", "kept\nnew\n", false)
	f.Add("// it’s\u00a0so\nv = 1\n", "// it's so\nv = 1\n", "// it's so\nv = 2\n", false)
	f.Add("\tif a {\n\t\tb()\n\t}\n", "if a {\n    b()\n}\n", "if a {\n    b()\n    c()\n}\n", false)
	f.Add("x\n```\ny\n", "```go\ny\n```", "```go\nz\n```", false)
	f.Add("cafe\u0301\nv\n", "café\nv", "café\nw", false)
	f.Add("a\nb\nc\nd\n", "a\n// ...\nd\n", "A\n// ...\nD\n", false)
	f.Add("k\nl\n", "\n\nk\n", "\n\nK\n", false)
	// The classes of issue #29: an indentation shift over a tab file with
	// a space-indented line, a Markdown sample with tabs, mixed C, blank
	// lines with their own whitespace, typography on a changed line.
	f.Add("\tq := `\n\t    SELECT a\n\t    FROM t`\n", "q := `\n    SELECT a\n    FROM t`\n", "q := `\n    SELECT a, b\n    FROM t`\n", false)
	f.Add("   ```go\n   func f() {\n   \treturn\n   }\n", "```go\nfunc f() {\n\treturn\n}\n", "```go\nfunc f() {\n\tlog()\n\treturn\n}\n", false)
	f.Add("\tif (a) {\n\t\tx = 1;\n        y = 2;\n\t}\n", "    if (a) {\n        x = 1;\n        y = 2;\n    }\n", "    if (a) {\n        x = 1;\n        y = 3;\n    }\n", false)
	f.Add("x = 1\n\t\ny = 2\n    \nz = 3\n", "x = 1\n\ny = 2\n\nz = 3\n", "x = 1\n\nz = 3\n", false)
	f.Add("It\u2019s done \u2013 ship 1.2\n", "It's done - ship 1.2\n", "It's done - ship 1.3\n", false)
	f.Fuzz(func(t *testing.T, text, search, replace string, all bool) {
		text = normalizeInput(text)
		e := Edit{Search: normalizeInput(search), Replace: normalizeInput(replace), All: all}
		got, err := Apply(text, e)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("error without code: %v", err)
			}
			return
		}
		cands, _, err := resolve(text, e, "search text")
		if err != nil {
			t.Fatalf("Apply succeeded but resolve failed: %v", err)
		}
		if !all && len(cands) != 1 {
			t.Fatalf("single edit used %d places", len(cands))
		}
		// Rebuild the expected text place by place: outside the spans every
		// byte must be the old one. A tolerant match's replacement keeps the
		// file's own bytes on the lines the model left as they were.
		var b strings.Builder
		pos := 0
		for _, c := range cands {
			if c.start < pos || c.end < c.start || c.end > len(text) {
				t.Fatalf("bad span %+v after %d in %q", c.span, pos, text)
			}
			b.WriteString(text[pos:c.start])
			r := c.replace
			if c.fit != nil {
				r = c.fit.fitToFile(text[c.start:c.end], c.replace)
				realLines, _ := splitFinal(text[c.start:c.end])
				fitted, _ := splitFinal(r)
				for i, j := range c.fit.same {
					if j >= 0 && len(fitted) == len(c.fit.replaceLines) && len(realLines) == len(c.fit.searchLines) && fitted[i] != realLines[j] {
						t.Fatalf("unchanged line %d of the replacement is %q, not the file's %q", i+1, fitted[i], realLines[j])
					}
				}
			}
			b.WriteString(r)
			pos = c.end
		}
		b.WriteString(text[pos:])
		if b.String() != got.Text {
			t.Fatalf("Apply(%q, %+v) = %q, want %q", text, e, got.Text, b.String())
		}
		for _, c := range cands {
			if strings.TrimSpace(text[c.start:c.end]) == "" && strings.TrimSpace(e.Search) != "" {
				t.Fatalf("non-blank search %q matched blank span %q", e.Search, text[c.start:c.end])
			}
		}
	})
}

// TestBlankAfterNormalisingNeverMatches: a search that only turns blank
// after a normalisation (a literal `\n`, a bare line-number prefix) must not
// match blank lines.
func TestBlankAfterNormalisingNeverMatches(t *testing.T) {
	t.Parallel()
	for _, search := range []string{`\n`, `\n\n`, `\t`, "     3\t"} {
		for _, all := range []bool{false, true} {
			if got, err := Apply("a\n\n\tb\n", Edit{Search: search, Replace: "0", All: all}); err == nil {
				t.Errorf("Apply(search %q, all %v) = %q, want an error", search, all, got.Text)
			}
		}
	}
}

// TestApplyAllBoundsItsSteps: more steps than MaxSteps are refused up
// front, naming the limit, and a canceled context stops the steps.
func TestApplyAllBoundsItsSteps(t *testing.T) {
	t.Parallel()
	steps := make([]Edit, MaxSteps+1)
	for i := range steps {
		steps[i] = Edit{Search: "a", Replace: "b"}
	}
	if _, err := ApplyAll(context.Background(), "a", steps); CodeOf(err) != CodeInvalidInput || !strings.Contains(err.Error(), "more than one call takes (1000)") {
		t.Errorf("ApplyAll(%d steps) = %v, want invalid_input naming the limit", len(steps), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ApplyAll(ctx, "a b", []Edit{{Search: "a", Replace: "x"}, {Search: "b", Replace: "y"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("ApplyAll with a canceled context = %v, want context.Canceled", err)
	}
}

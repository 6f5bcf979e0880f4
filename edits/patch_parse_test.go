package edits

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseBeginPatchRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, patch string
		line        string // "patch line N:" the message must name; "" for none
	}{
		{"no file section", "*** Begin Patch\n*** End Patch\n", ""},
		{"unknown header", "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n", "patch line 2:"},
		{"add line without plus", "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch\n", "patch line 4:"},
		{"add without path", "*** Begin Patch\n*** Add File:\n+x\n*** End Patch\n", "patch line 2:"},
		{"delete with lines", "*** Begin Patch\n*** Delete File: a\n-x\n*** End Patch\n", "patch line 3:"},
		{"update without chunk", "*** Begin Patch\n*** Update File: a\n*** End Patch\n", "patch line 2:"},
		{"update without chunk at end", "*** Begin Patch\n*** Update File: a\n", "patch line 2:"},
		{"chunk line without prefix", "*** Begin Patch\n*** Update File: a\n@@\n-x\nbad\n*** End Patch\n", "patch line 5:"},
		{"chunk without lines", "*** Begin Patch\n*** Update File: a\n@@ func f\n*** End Patch\n", "patch line 3:"},
		{"chunk of blank lines", "*** Begin Patch\n*** Update File: a\n@@\n\n\n@@\n-x\n+y\n*** End Patch\n", "patch line 3:"},
		{"end of file without chunk", "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch\n", "patch line 3:"},
		{"lines after end of file", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End of File\n-z\n*** End Patch\n", "patch line 7:"},
		{"move to out of place", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch\n", "patch line 6:"},
		{"move to without path", "*** Begin Patch\n*** Update File: a\n*** Move to:\n@@\n-x\n+y\n*** End Patch\n", "patch line 3:"},
		{"second begin", "*** Begin Patch\n*** Delete File: a\n*** Begin Patch\n*** Delete File: b\n*** End Patch\n", "patch line 3:"},
		{"end patch in the middle", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n*** End Patch\n", "patch line 3:"},
		{"text after end patch", "*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n", "patch line 3:"},
		{"fence and crlf keep line numbers", "\r\n```\r\n*** Begin Patch\r\n*** Bogus\r\n*** End Patch\r\n```\r\n", "patch line 4:"},
		{"stray top-level line", "*** Begin Patch\n*** Delete File: a\n\n@@\n-x\n*** End Patch\n", "patch line 4:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParsePatch(tc.patch)
			if CodeOf(err) != CodeInvalidInput {
				t.Fatalf("ParsePatch(%q) error = %v, want invalid_input", tc.patch, err)
			}
			e, _ := errors.AsType[*Error](err)
			msg := e.Message
			if !strings.HasPrefix(msg, tc.line) {
				t.Errorf("ParsePatch(%q) message = %q, want it to start with %q", tc.patch, msg, tc.line)
			}
			if !strings.Contains(msg, ";") {
				t.Errorf("ParsePatch(%q) message = %q, want a next step after ';'", tc.patch, msg)
			}
		})
	}
}

func TestParseBeginPatch(t *testing.T) {
	t.Parallel()
	type chunk struct {
		Old, New string
		Anchors  []string
		Hint     int
		EOF      bool
	}
	type file struct {
		Old, New string
		Chunks   []chunk
	}
	for _, tc := range []struct {
		name, patch string
		want        []file
		repairs     []string
	}{
		{
			name:  "every operation",
			patch: "*** Begin Patch\n*** Add File: n.txt\n+a\n+\n+b\n*** Delete File: d.txt\n*** Update File: u.go\n*** Move to: v.go\n@@ func f() {\n x\n-y\n+z\n*** End Patch\n",
			want: []file{
				{New: "n.txt", Chunks: []chunk{{New: "a\n\nb\n"}}},
				{Old: "d.txt"},
				{Old: "u.go", New: "v.go", Chunks: []chunk{{Old: "x\ny\n", New: "x\nz\n", Anchors: []string{"func f() {"}}}},
			},
		},
		{
			name:    "missing begin and end",
			patch:   "*** Update File: a\n@@\n-x\n+y\n",
			want:    []file{{Old: "a", New: "a", Chunks: []chunk{{Old: "x\n", New: "y\n"}}}},
			repairs: []string{RepairBeginPatchAdded, RepairEndPatchAdded},
		},
		{
			name:    "inside a heredoc, as a shell command would feed it",
			patch:   "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch\nEOF\n",
			want:    []file{{Old: "a", New: "a", Chunks: []chunk{{Old: "x\n", New: "y\n"}}}},
			repairs: []string{RepairHeredocRemoved},
		},
		{
			name:  "padded markers and blank lines between sections",
			patch: "  *** Begin Patch  \n\n*** Update File:   a  \n\n@@\n-x\n+y\n\n\n*** Add File: b\n+1\n\n*** End Patch \n",
			want: []file{
				{Old: "a", New: "a", Chunks: []chunk{{Old: "x\n", New: "y\n"}}},
				{New: "b", Chunks: []chunk{{New: "1\n"}}},
			},
		},
		{
			name:  "empty line inside a chunk is an empty context line",
			patch: "*** Begin Patch\n*** Update File: a\n@@\n x\n\n-y\n+z\n*** End Patch\n",
			want:  []file{{Old: "a", New: "a", Chunks: []chunk{{Old: "x\n\ny\n", New: "x\n\nz\n"}}}},
		},
		{
			name:  "nested anchors, a unified header and end of file",
			patch: "*** Begin Patch\n*** Update File: a.py\n@@ class A\n@@ -10,2 +10,2 @@ def f(self):\n-    pass\n+    return 1\n*** End of File\n@@ def g @@\n+x\n*** End Patch\n",
			want: []file{{Old: "a.py", New: "a.py", Chunks: []chunk{
				{Old: "    pass\n", New: "    return 1\n", Anchors: []string{"class A", "def f(self):"}, Hint: 10, EOF: true},
				{New: "x\n", Anchors: []string{"def g"}},
			}}},
		},
		{
			name:  "context lines that look like markers",
			patch: "*** Begin Patch\n*** Update File: a.md\n@@\n *** not a marker\n-@@ old\n+@@ new\n*** End Patch\n",
			want:  []file{{Old: "a.md", New: "a.md", Chunks: []chunk{{Old: "*** not a marker\n@@ old\n", New: "*** not a marker\n@@ new\n"}}}},
		},
		{
			name:  "empty new file and pure rename",
			patch: "*** Begin Patch\n*** Add File: empty.txt\n*** Update File: a\n*** Move to: b\n*** End Patch\n",
			want:  []file{{New: "empty.txt"}, {Old: "a", New: "b"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fps, repairs, err := ParsePatch(tc.patch)
			if err != nil {
				t.Fatalf("ParsePatch(%q) error: %v", tc.patch, err)
			}
			var got []file
			for _, fp := range fps {
				if !fp.beginPatch {
					t.Errorf("ParsePatch(%q): %s not marked as the *** Begin Patch format", tc.patch, fp.name())
				}
				f := file{Old: fp.OldPath, New: fp.NewPath}
				for _, h := range fp.hunks {
					f.Chunks = append(f.Chunks, chunk{Old: h.old, New: h.new, Anchors: h.anchors, Hint: h.hint, EOF: h.eof})
				}
				got = append(got, f)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParsePatch(%q) files (-want +got):\n%s", tc.patch, diff)
			}
			if diff := cmp.Diff(tc.repairs, repairs); diff != "" {
				t.Errorf("ParsePatch(%q) repairs (-want +got):\n%s", tc.patch, diff)
			}
		})
	}
}

func TestApplyChunks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text, patch string
		want              string
		code              string
		lines             []int
		msg               string // a part of the error message
	}{
		{
			name:  "anchor repeated as the first context line",
			text:  "def f():\n    pass\n\ndef g():\n    pass\n",
			patch: "@@ def g():\n def g():\n-    pass\n+    return 1\n",
			want:  "def f():\n    pass\n\ndef g():\n    return 1\n",
			lines: []int{4},
		},
		{
			name:  "anchor matches the start of a line",
			text:  "func a() {\n\treturn\n}\nfunc b(x int) {\n\treturn\n}\n",
			patch: "@@ func b(\n-\treturn\n+\treturn // b\n",
			want:  "func a() {\n\treturn\n}\nfunc b(x int) {\n\treturn // b\n}\n",
		},
		{
			name:  "nested anchors",
			text:  "class A:\n  def f(self):\n    x = 1\nclass B:\n  def f(self):\n    x = 1\n",
			patch: "@@ class B:\n@@ def f(self):\n-    x = 1\n+    x = 2\n",
			want:  "class A:\n  def f(self):\n    x = 1\nclass B:\n  def f(self):\n    x = 2\n",
		},
		{
			name:  "nested anchor not found names the previous anchor",
			text:  "class A:\n  def f(self):\n    x = 1\nclass B:\n  pass\n",
			patch: "@@ class B:\n@@ def f(self):\n-    x = 1\n+    x = 2\n",
			code:  CodeSearchNotFound,
			msg:   `the @@ line "def f(self):" matches no line of the file after line 4, the chunk's previous @@ line (it matches line 2, before that`,
		},
		{
			name:  "unified line number chooses among matches",
			text:  "x\ny\nx\ny\n",
			patch: "@@ -3,1 +3,1 @@\n-x\n+X\n",
			want:  "x\ny\nX\ny\n",
			lines: []int{3},
		},
		{
			name:  "ambiguous without a line number",
			text:  "x\ny\nx\ny\n",
			patch: "@@\n-x\n+X\n",
			code:  CodeSearchNotUnique,
			lines: []int{1, 3},
		},
		{
			name:  "exact match inside a line does not count",
			text:  "total = 1\n1\n",
			patch: "@@\n-1\n+2\n",
			want:  "total = 1\n2\n",
		},
		{
			name:  "end of file without a final line break",
			text:  "a\nb",
			patch: "@@\n-b\n+c\n*** End of File\n",
			want:  "a\nc",
		},
		{
			name:  "end of file refuses a match above the end",
			text:  "a\nb\nc\n",
			patch: "@@\n-a\n+A\n*** End of File\n",
			code:  CodeSearchNotFound,
			lines: []int{1},
			msg:   "matches only at line 1, not at the end of the file (line 3 is its last)",
		},
		{
			name:  "insertion without anchor appends, keeping a missing final line break",
			text:  "a\nb",
			patch: "@@\n+c\n",
			want:  "a\nb\nc",
			lines: []int{3},
		},
		{
			name:  "insertion after an anchor on the last line",
			text:  "a\nb",
			patch: "@@ b\n+c\n",
			want:  "a\nb\nc",
		},
		{
			name:  "second chunk searched after the first",
			text:  "k = 1\nk = 1\n",
			patch: "@@\n-k = 1\n+k = 2\n*** End of File\n@@\n+k = 3\n",
			want:  "k = 1\nk = 2\nk = 3\n",
		},
		{
			name:  "chunk after the previous one is not found there",
			text:  "a\nb\nc\n",
			patch: "@@\n-b\n+B\n@@\n-q\n+Q\n",
			code:  CodeSearchNotFound,
			msg:   "chunk 2 of 2 (patch line 6, @@): the chunk's old side (searched after line 2, where the previous chunk ended) was not found",
		},
		{
			name:  "context-only chunk changes nothing",
			text:  "a\nb\n",
			patch: "@@\n a\n@@\n-b\n+B\n",
			want:  "a\nB\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			patch := "*** Begin Patch\n*** Update File: f\n" + tc.patch + "*** End Patch\n"
			fps, _, err := ParsePatch(patch)
			if err != nil {
				t.Fatalf("ParsePatch(%q) error: %v", patch, err)
			}
			got, err := fps[0].Apply(tc.text)
			if tc.code != "" {
				if CodeOf(err) != tc.code {
					t.Fatalf("Apply(%q) error = %v, want code %s", tc.text, err, tc.code)
				}
				e, _ := errors.AsType[*Error](err)
				if !strings.Contains(e.Message, tc.msg) {
					t.Errorf("Apply(%q) message = %q, want it to contain %q", tc.text, e.Message, tc.msg)
				}
				if tc.lines != nil {
					if diff := cmp.Diff(tc.lines, e.Lines); diff != "" {
						t.Errorf("error lines (-want +got):\n%s", diff)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%q) error: %v", tc.text, err)
			}
			if got.Text != tc.want {
				t.Errorf("Apply(%q).Text = %q, want %q", tc.text, got.Text, tc.want)
			}
			if tc.lines != nil {
				if diff := cmp.Diff(tc.lines, got.Lines); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestPlanBeginPatchFiles covers the file-level refusals and the delete
// that needs no hunks, for both formats where they share a path.
func TestPlanBeginPatchFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, patch string
		raw         string
		exists      bool
		code        string
		msg         string
	}{
		{"delete missing", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n", "", false, CodeNotFound, "a does not exist, so *** Delete File has nothing to delete"},
		{"update missing", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch\n", "", false, CodeNotFound, "check the path in the *** Update File line"},
		{"add existing", "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n", "x\n", true, CodeWriteConflict, "creates it with *** Add File"},
		{"delete binary", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n", "\x00\xff", true, "", ""},
		{"unified delete without hunks", "diff --git a/a b/a\ndeleted file mode 100644\n--- a/a\n+++ /dev/null\n", "\x00\xff", true, "", ""},
		{"unified delete with hunks still checks them", "--- a/a\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", "\x00\xff", true, CodeBinaryFile, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fps, _, err := ParsePatch(tc.patch)
			if err != nil {
				t.Fatalf("ParsePatch(%q) error: %v", tc.patch, err)
			}
			_, err = PlanPatch(fps[0], []byte(tc.raw), tc.exists)
			if CodeOf(err) != tc.code {
				t.Fatalf("PlanPatch(%q) error = %v, want code %q", tc.patch, err, tc.code)
			}
			if err != nil && !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("PlanPatch(%q) error = %q, want it to contain %q", tc.patch, err, tc.msg)
			}
		})
	}
}

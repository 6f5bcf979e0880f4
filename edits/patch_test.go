package edits

import (
	"strings"
	"testing"
)

func TestParsePatchRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, patch string
	}{
		{"empty", "\n\n"},
		{"no file header", "@@ -1 +1 @@\n-a\n+b\n"},
		{"both sides dev null", "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n"},
		{"binary", "diff --git a/x.png b/x.png\nindex 1..2 100644\nGIT binary patch\nliteral 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ParsePatch(tc.patch); CodeOf(err) != CodeInvalidInput {
				t.Errorf("ParsePatch(%q) error = %v, want invalid_input", tc.patch, err)
			}
		})
	}
}

func TestPatchHunksApplyInOrder(t *testing.T) {
	t.Parallel()
	text := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	patch := "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n+a2\n b\n c\n@@ -8,3 +9,3 @@\n h\n-i\n+I\n j\n"
	fps, _, err := ParsePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fps[0].Apply(text)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\na2\nb\nc\nd\ne\nf\ng\nh\nI\nj\n"; got.Text != want {
		t.Errorf("Apply = %q, want %q", got.Text, want)
	}
}

// FuzzParsePatch feeds arbitrary patches, unified diffs and "*** Begin Patch"
// patches alike, and file texts through the parser, the hunk matcher and the
// planner: they may refuse, but never panic, and an error is always an
// *Error with a code.
func FuzzParsePatch(f *testing.F) {
	f.Add("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "a\nb\n")
	f.Add("```diff\n--- /dev/null\n+++ b/n\n@@\n+x\n```\n", "")
	f.Add("--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n", "a")
	f.Add("*** Begin Patch\n*** Update File: f\n@@ func f() {\n \tx := 1\n-\ty := 2\n+\ty := 3\n@@\n-z\n+Z\n*** End of File\n*** End Patch\n", "func f() {\n\tx := 1\n\ty := 2\n}\nz")
	f.Add("```\r\n*** Begin Patch\r\n*** Add File: n\r\n+a\r\n\r\n+b\r\n*** Delete File: d\r\n*** Update File: m\r\n*** Move to: m2\r\n```", "")
	f.Add("*** Update File: f\n@@ class A\n@@ -3,1 +3,2 @@ def g\n+x\n", "class A:\n  def g():\n    pass\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End of File\n-c\n*** End Patch", "a\nc\n")
	// Duplicated hunks that a line number or an @@ anchor places.
	f.Add("--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n x\n-y\n+Y\n", "x\ny\n\nx\ny\n")
	f.Add("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n@@ -3 +3 @@\n-b\n+B\n", "z\na\nb\nc\nb\n")
	f.Add("--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n", "b\nq\nb\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@ def g():\n-    return 1\n+    return 2\n*** End Patch\n", "def f():\n    return 1\ndef g():\n    return 1\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@ class B\n@@ def g\n-  x\n+  y\n*** End Patch\n", "class A\ndef g\n  x\nclass B\ndef g\n  x\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@ -3,1 +3,1 @@\n-x\n+y\n@@\n-x\n+z\n*** End Patch\n", "x\n\nx\n\nx\n")
	// The classes of issue #29: repeated anchors whose chunk is unique or
	// clearly nearest, blank lines paired by position, typography on a
	// changed line, repeated lines with different endings, a file without
	// a final line break.
	f.Add("*** Begin Patch\n*** Update File: f\n@@ const (\n \tC = 3\n-\tD = 4\n+\tD = 5\n*** End Patch\n", "const (\n\tA = 1\n)\nconst (\n\tC = 3\n\tD = 4\n)\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@ end:\n-\tr = 0;\n+\tr = 1;\n*** End Patch\n", "end:\n\tr = 0;\n\ta();\n\tb();\n\tc();\n\tr = 0;\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@\n a = 1\n+\n \n b = 2\n*** End Patch\n", "a = 1\n\t\nb = 2\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@\n-x = \"it's\" - 1\n+x = \"it's\" - 2\n*** End Patch\n", "x = \u201cit\u2019s\u201d \u2013 1\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@\n-same\n same\n*** End Patch\n", "same\r\nsame\n")
	f.Add("--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n }\n-}\n }\n", "}\r\n}\n}\r\n")
	f.Add("*** Begin Patch\n*** Update File: f\n@@\n two\n+three\n*** End of File\n*** End Patch\n", "one\ntwo")
	f.Add("*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+\n*** End Patch\n", "a\rb\n")
	f.Fuzz(func(t *testing.T, patch, text string) {
		fps, _, err := ParsePatch(patch)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("ParsePatch error without code: %v", err)
			}
			return
		}
		for _, fp := range fps {
			checkPlacedHunks(t, fp, normalizeInput(text))
			plan, err := PlanPatch(fp, []byte(text), !fp.Creates())
			if err != nil && CodeOf(err) == "" {
				t.Fatalf("PlanPatch error without code: %v", err)
			}
			if err == nil && !fp.Creates() && !fp.Deletes() {
				checkKeptEndings(t, []byte(text), plan)
			}
		}
	})
}

// checkPlacedHunks applies fp to text and, when it is accepted, checks
// every hunk it placed: the hunk saw exactly the text the hunks before it
// left, it changed bytes only inside the span it chose (the result is the
// text rebuilt span by span), that span is one of the candidates of the
// first tier that matched in the hunk's region, and when there were several
// the line-hint rule chose it: the candidate nearest the hinted line, every
// other more than hintMargin times as far.
func checkPlacedHunks(t *testing.T, fp FilePatch, text string) {
	t.Helper()
	var placed []placedHunk
	got, err := fp.apply(text, func(p placedHunk) { placed = append(placed, p) })
	if err != nil {
		if CodeOf(err) == "" {
			t.Fatalf("Apply error without code: %v", err)
		}
		return
	}
	cur, hinted := text, false
	for k, p := range placed {
		if p.before != cur {
			t.Fatalf("hunk %d saw %q, want the text the hunks before left, %q", k+1, p.before, cur)
		}
		c := p.pick
		if c.start < p.from || c.end < c.start || c.end > len(cur) {
			t.Fatalf("hunk %d: span %+v outside its region [%d, %d) of %q", k+1, c.span, p.from, len(cur), cur)
		}
		if len(p.cands) > 0 {
			if c.start > 0 && cur[c.start-1] != '\n' {
				t.Fatalf("hunk %d: span %+v starts inside a line of %q", k+1, c.span, cur)
			}
			found := false
			for _, o := range p.cands {
				if o.start < p.from {
					t.Fatalf("hunk %d: candidate %+v before its region's start %d", k+1, o.span, p.from)
				}
				found = found || o.span == c.span
			}
			if !found {
				t.Fatalf("hunk %d: span %+v is none of the candidates %+v", k+1, c.span, p.cands)
			}
		}
		if len(p.cands) > 1 && p.rule == RepairAnchorNearest {
			// The first place after the anchor's first line, under no
			// other line of the anchor, clearly nearer than the next.
			sorted := nonOverlappingSorted(p.cands)
			if len(p.anchors) == 0 || c.span != sorted[0].span {
				t.Fatalf("hunk %d: anchor_nearest chose %+v, not the first of %+v after anchors %+v", k+1, c.span, sorted, p.anchors)
			}
			last := sorted[len(sorted)-1]
			if len(p.anchors) > 1 && last.start >= p.anchors[1].start {
				t.Fatalf("hunk %d: anchor_nearest chose among places under two anchor lines %+v", k+1, p.anchors)
			}
			a := lineOf(cur, p.anchors[0].start)
			if d0, d1 := lineOf(cur, sorted[0].start)-a, lineOf(cur, sorted[1].start)-a; d1 <= 2*d0+1 {
				t.Fatalf("hunk %d: anchor_nearest chose a place %d lines below the anchor over one %d below", k+1, d0, d1)
			}
		} else if len(p.cands) > 1 {
			if p.rule != RepairLineHintChose || p.want <= 0 {
				t.Fatalf("hunk %d: %d candidates placed by rule %q, hint %d", k+1, len(p.cands), p.rule, p.want)
			}
			hinted = true
			dist := func(o candidate) int {
				d := lineOf(cur, o.start) - p.want
				return max(d, -d)
			}
			for _, o := range p.cands {
				if o.span != c.span && dist(o) <= hintMargin*dist(c) {
					t.Fatalf("hunk %d: chose line %d for hint %d, but line %d is not more than %d times as far", k+1, lineOf(cur, c.start), p.want, lineOf(cur, o.start), hintMargin)
				}
			}
		}
		r := c.replace
		if c.fit != nil { // a tolerant match keeps the file's bytes on unchanged lines
			r = c.fit.fitToFile(cur[c.start:c.end], c.replace)
			// Lines the hunk keeps (its context lines, by their place in
			// it) are the file's lines they matched, byte for byte.
			realLines, _ := splitFinal(cur[c.start:c.end])
			fitted, _ := splitFinal(r)
			if len(fitted) == len(c.fit.replaceLines) && len(realLines) == len(c.fit.searchLines) {
				for i, j := range c.fit.same {
					if j >= 0 && fitted[i] != realLines[j] {
						t.Fatalf("hunk %d: kept line %d is %q, not the file's %q", k+1, i+1, fitted[i], realLines[j])
					}
				}
			}
		}
		cur = cur[:c.start] + r + cur[c.end:]
	}
	if cur != got.Text {
		t.Fatalf("Apply = %q, but the hunks' spans rebuild %q", got.Text, cur)
	}
	hasRule := false
	for _, r := range got.Repairs {
		hasRule = hasRule || r == RepairLineHintChose
	}
	if hasRule != hinted {
		t.Fatalf("repairs %v, but a line hint chose: %v", got.Repairs, hinted)
	}
}

// TestPatchHunkMatchesWholeLines: a hunk's old side is whole lines, so an
// exact match that starts inside a line is no candidate; a line that only
// ends the same way is never rewritten.
func TestPatchHunkMatchesWholeLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text, patch, want, code string
	}{
		{"the whole line wins", "total = 1\n1\n", "--- a/f\n+++ b/f\n@@\n-1\n+2\n", "total = 1\n2\n", ""},
		{"a line tail is not the line", "maxcount = 0\n", "--- a/f\n+++ b/f\n@@\n-count = 0\n+count = 1\n", "", CodeSearchNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fps, _, err := ParsePatch(tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fps[0].Apply(tc.text)
			if CodeOf(err) != tc.code {
				t.Fatalf("Apply(%q) error = %v, want code %q", tc.text, err, tc.code)
			}
			if err == nil && got.Text != tc.want {
				t.Errorf("Apply(%q) = %q, want %q", tc.text, got.Text, tc.want)
			}
		})
	}
}

// TestParsePatchHeredoc: a unified diff in a heredoc loses the wrapper; a
// heredoc whose closing delimiter differs is left alone (and then refused).
func TestParsePatchHeredoc(t *testing.T) {
	t.Parallel()
	fps, repairs, err := ParsePatch("<<EOF\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\nEOF\n")
	if err != nil || len(fps) != 1 || fps[0].NewPath != "x.go" || len(repairs) != 1 || repairs[0] != RepairHeredocRemoved {
		t.Errorf("ParsePatch(heredoc) = %+v, %v, %v; want x.go with heredoc_removed", fps, repairs, err)
	}
	if _, repairs, _ := ParsePatch("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+1\n*** End Patch\nEND\n"); len(repairs) != 0 && repairs[0] == RepairHeredocRemoved {
		t.Errorf("a heredoc with a different closing line was removed: %v", repairs)
	}
}

// checkKeptEndings checks that every line a change kept has the line ending
// it had in raw, also where equal lines end differently (a patch's context
// lines say which line stayed).
func checkKeptEndings(t *testing.T, raw []byte, plan Change) {
	t.Helper()
	origin, ok := plan.Applied.origins()
	if !ok {
		return
	}
	oldEnds, newEnds := lineEndings(unitText(raw, raw)), lineEndings(unitText(raw, plan.New))
	if len(newEnds) != len(origin) {
		t.Fatalf("%d line origins for %d lines of %q", len(origin), len(newEnds), plan.New)
	}
	for i, j := range origin {
		if j < 0 || j >= len(oldEnds) || oldEnds[j] == "" || newEnds[i] == "" {
			continue // a changed line, or a last line without a line break
		}
		merged := oldEnds[j] == "\r" && newEnds[i] == "\r\n" && i+1 < len(newEnds) && newEnds[i+1] == "\n"
		if oldEnds[j] != newEnds[i] && !merged { // a CR before an empty LF line becomes CRLF, or the two would read as one
			t.Fatalf("line %d of %q is line %d of %q but ends in %q, not %q", i+1, plan.New, j+1, raw, newEnds[i], oldEnds[j])
		}
	}
}

// unitText is b with UTF-16 (as Decode finds it in raw, the file before
// the change) decoded to UTF-8, its line breaks as they are, so lineEndings
// counts characters, not bytes.
func unitText(raw, b []byte) []byte {
	d, err := Decode(raw)
	if err != nil || (d.Format.Encoding != UTF16LE && d.Format.Encoding != UTF16BE) {
		return b
	}
	if d.Format.BOM && len(b) >= 2 {
		b = b[2:]
	}
	if s, ok := decodeUTF16(b, d.Format.Encoding == UTF16BE); ok {
		return []byte(s)
	}
	return b
}

// lineEndings returns each line's ending ("\r\n", "\n", "\r" or "").
func lineEndings(b []byte) []string {
	var out []string
	s := string(b)
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(out, "")
		}
		n := 1
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			n = 2
		}
		out = append(out, s[i:i+n])
		s = s[i+n:]
	}
	return out
}

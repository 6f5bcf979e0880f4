package edits

import (
	"testing"
)

func TestParsePatchRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
	}{
		{"empty", "\n\n"},
		{"begin patch format", "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch\n"},
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

// FuzzParsePatch feeds arbitrary patches and file texts through the parser
// and the hunk matcher: they may refuse, but never panic, and an error is
// always an *Error with a code.
func FuzzParsePatch(f *testing.F) {
	f.Add("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "a\nb\n")
	f.Add("```diff\n--- /dev/null\n+++ b/n\n@@\n+x\n```\n", "")
	f.Add("--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n", "a")
	f.Fuzz(func(t *testing.T, patch, text string) {
		fps, _, err := ParsePatch(patch)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("ParsePatch error without code: %v", err)
			}
			return
		}
		for _, fp := range fps {
			if _, err := fp.Apply(normalizeInput(text)); err != nil && CodeOf(err) == "" {
				t.Fatalf("Apply error without code: %v", err)
			}
		}
	})
}

package edits

import (
	"testing"

	"github.com/sourcegraph/go-diff/diff"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		oldPath, newPath string
		old, new         string
		want             string
		stat             Stat
	}{
		{
			name: "one line", oldPath: "a.txt", newPath: "a.txt",
			old: "1\n2\n3\n4\n5\n6\n7\n8\n", new: "1\n2\n3\n4\nfive\n6\n7\n8\n",
			want: "--- a/a.txt\n+++ b/a.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
			stat: Stat{Added: 1, Removed: 1},
		},
		{
			name: "no newline at end", oldPath: "a.txt", newPath: "a.txt",
			old: "a\nb", new: "a\nc",
			want: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
			stat: Stat{Added: 1, Removed: 1},
		},
		{
			name: "created", newPath: "n.txt", new: "x\ny\n",
			want: "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n",
			stat: Stat{Added: 2},
		},
		{
			name: "deleted", oldPath: "d.txt", old: "x\n",
			want: "--- a/d.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n",
			stat: Stat{Removed: 1},
		},
		{name: "equal", oldPath: "a", newPath: "a", old: "same\n", new: "same\n", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, st := UnifiedDiff(tc.oldPath, tc.newPath, tc.old, tc.new)
			if got != tc.want {
				t.Errorf("UnifiedDiff =\n%s\nwant\n%s", got, tc.want)
			}
			if st != tc.stat {
				t.Errorf("stat = %+v, want %+v", st, tc.stat)
			}
			if got == "" {
				return
			}
			// What we print must read back as the same change.
			fds, err := diff.ParseMultiFileDiff([]byte(got))
			if err != nil || len(fds) != 1 {
				t.Fatalf("ParseMultiFileDiff: %v (%d files)", err, len(fds))
			}
		})
	}
}

func TestUnifiedDiffAppliesAsPatch(t *testing.T) {
	t.Parallel()
	old := "package a\n\nfunc f() {\n\treturn\n}\n\nfunc g() {}\n\n// end\n"
	new := "package a\n\nimport \"os\"\n\nfunc f() {\n\tos.Exit(1)\n}\n\nfunc g() {}\n\n// the end"
	d, _ := UnifiedDiff("a.go", "a.go", old, new)
	fps, _, err := ParsePatch(d)
	if err != nil {
		t.Fatalf("ParsePatch(%q): %v", d, err)
	}
	got, err := fps[0].Apply(old)
	if err != nil {
		t.Fatalf("Apply: %v\n%s", err, d)
	}
	if got.Text != new {
		t.Errorf("patch applied = %q, want %q\n%s", got.Text, new, d)
	}
}

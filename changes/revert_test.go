package changes

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readDisk is PlanRevert's current for files on disk.
func readDisk(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// applyPlan writes a revert plan to disk and journals it.
func applyPlan(t *testing.T, j *Journal, plan RevertPlan, ids []string) Entry {
	t.Helper()
	if len(plan.Files) == 0 {
		return Entry{} // nothing to do
	}
	p, err := j.Begin(Meta{Tool: "changes_revert", RevertOf: ids}, plan.Changes(func(string) string { return WhereDisk }))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plan.Files {
		if f.Exists {
			os.MkdirAll(filepath.Dir(f.Path), 0o755)
			err = os.WriteFile(f.Path, f.Content, 0o644)
		} else {
			err = os.Remove(f.Path)
		}
		if err != nil {
			p.Abort()
			t.Fatal(err)
		}
	}
	e, err := p.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// toolWrite writes path and journals the change, as a tool does.
func toolWrite(t *testing.T, j *Journal, path, content string, exists bool) Entry {
	t.Helper()
	before, had, _ := readDisk(path)
	fc := FileChange{Path: path, Before: before, BeforeExists: had, After: []byte(content), AfterExists: exists, Where: WhereDisk}
	p, err := j.Begin(Meta{Tool: "edit"}, []FileChange{fc})
	if err != nil {
		t.Fatal(err)
	}
	if exists {
		err = os.WriteFile(path, []byte(content), 0o644)
	} else {
		err = os.Remove(path)
	}
	if err != nil {
		p.Abort()
		t.Fatal(err)
	}
	e, err := p.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPlanRevert(t *testing.T) {
	t.Parallel()
	const original = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	for _, tc := range []struct {
		name string
		// initial is the file before the tool's change ("" absent).
		initial string
		// tool is what the tool writes ("" deletes).
		tool string
		// user is what the user leaves in the file afterwards ("-" as the
		// tool left it, "" deleted).
		user string
		// want is the file after the revert ("" absent); conflict instead
		// says a conflict whose reason contains it is expected.
		want, conflict string
	}{
		{"untouched since", original, strings.Replace(original, "two", "TWO", 1), "-", original, ""},
		{"user edited elsewhere", original, strings.Replace(original, "two", "TWO", 1),
			strings.Replace(strings.Replace(original, "two", "TWO", 1), "six", "SIX", 1),
			strings.Replace(original, "six", "SIX", 1), ""},
		{"user edited the same lines", original, strings.Replace(original, "two", "TWO", 1),
			strings.Replace(original, "two", "2", 1), "", "lines the change touched"},
		{"created, unchanged: deleted", "", "new\n", "-", "", ""},
		{"created then changed", "", "new\n", "new\nmore\n", "", "created this file"},
		{"created, already gone", "", "new\n", "", "", ""},
		{"deleted: recreated", original, "", "", original, ""},
		{"deleted then recreated differently", original, "", "other\n", "", "lines the change touched"},
		{"changed then deleted", original, "x\n" + original, "", "", "deleted after"},
		{"crlf, no final newline", "a\r\nb\r\nc\r\nd\r\ne", "a\r\nB\r\nc\r\nd\r\ne", "a\r\nB\r\nc\r\nd\r\nE", "a\r\nb\r\nc\r\nd\r\nE", ""},
		{"binary unchanged since", "\x00a", "\x00b", "-", "\x00a", ""},
		{"binary changed since", "\x00a", "\x00b", "\x00c", "", "binary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := openTest(t, t.TempDir(), Options{})
			path := filepath.Join(t.TempDir(), "f.txt")
			if tc.initial != "" {
				os.WriteFile(path, []byte(tc.initial), 0o644)
			}
			e := toolWrite(t, j, path, tc.tool, tc.tool != "")
			switch tc.user {
			case "-":
			case "":
				os.Remove(path)
			default:
				os.WriteFile(path, []byte(tc.user), 0o644)
			}
			userState, userHad, _ := readDisk(path)
			plan, err := j.PlanRevert(context.Background(), []string{e.ID}, readDisk)
			if err != nil {
				t.Fatal(err)
			}
			if tc.conflict != "" {
				if len(plan.Conflicts) != 1 || !strings.Contains(plan.Conflicts[0].Reason, tc.conflict) || plan.Files != nil {
					t.Fatalf("PlanRevert = %+v, want one conflict about %q and no file", plan, tc.conflict)
				}
				if now, had, _ := readDisk(path); string(now) != string(userState) || had != userHad {
					t.Errorf("a conflicting plan changed the file")
				}
				return
			}
			if len(plan.Conflicts) > 0 {
				t.Fatalf("PlanRevert conflicts: %+v", plan.Conflicts)
			}
			applyPlan(t, j, plan, []string{e.ID})
			got, had, _ := readDisk(path)
			if string(got) != tc.want || had != (tc.want != "") {
				t.Errorf("after revert the file is %q (exists %v), want %q", got, had, tc.want)
			}
		})
	}
}

func TestConflictHunks(t *testing.T) {
	t.Parallel()
	j := openTest(t, t.TempDir(), Options{})
	path := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(path, []byte("a\nb\nc\n"), 0o644)
	e := toolWrite(t, j, path, "a\nwhale\nc\n", true)
	os.WriteFile(path, []byte("a\nuser\nc\n"), 0o644)
	plan, err := j.PlanRevert(context.Background(), []string{e.ID}, readDisk)
	if err != nil || len(plan.Conflicts) != 1 || len(plan.Conflicts[0].Hunks) != 1 {
		t.Fatalf("PlanRevert = %+v, %v, want one conflict with one hunk", plan, err)
	}
	want := "@@ current lines 2-2 @@\n<<<<<<< current\nuser\n||||||| written by the change\nwhale\n=======\nb\n>>>>>>> restored by the revert\n"
	if got := plan.Conflicts[0].Hunks[0]; got != want {
		t.Errorf("hunk =\n%s\nwant\n%s", got, want)
	}
}

func TestRevertOfRevert(t *testing.T) {
	t.Parallel()
	j := openTest(t, t.TempDir(), Options{})
	path := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(path, []byte("a\nb\nc\n"), 0o644)
	e := toolWrite(t, j, path, "a\nB\nc\n", true)
	plan, _ := j.PlanRevert(context.Background(), []string{e.ID}, readDisk)
	r := applyPlan(t, j, plan, []string{e.ID})
	if got, _, _ := readDisk(path); string(got) != "a\nb\nc\n" {
		t.Fatalf("after revert %q", got)
	}
	if len(r.RevertOf) != 1 || r.RevertOf[0] != e.ID {
		t.Errorf("revert entry RevertOf = %v, want [%s]", r.RevertOf, e.ID)
	}
	plan, err := j.PlanRevert(context.Background(), []string{r.ID}, readDisk)
	if err != nil || len(plan.Conflicts) > 0 {
		t.Fatalf("PlanRevert(revert) = %+v, %v", plan, err)
	}
	applyPlan(t, j, plan, []string{r.ID})
	if got, _, _ := readDisk(path); string(got) != "a\nB\nc\n" {
		t.Errorf("after reverting the revert %q, want %q", got, "a\nB\nc\n")
	}
}

func TestRevertTo(t *testing.T) {
	t.Parallel()
	j := openTest(t, t.TempDir(), Options{})
	dir := t.TempDir()
	f, g := filepath.Join(dir, "f.txt"), filepath.Join(dir, "g.txt")
	os.WriteFile(f, []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n"), 0o644)
	e1 := toolWrite(t, j, f, "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n", true)
	e2 := toolWrite(t, j, g, "new\n", true)
	// e3 changes the line e1 wrote: only newest first undoes both cleanly.
	e3 := toolWrite(t, j, f, "1\nTWO!\n3\n4\n5\n6\n7\n8\n9\n", true)
	os.WriteFile(f, []byte("1\nTWO!\n3\n4\n5\n6\n7\n8\nuser\n"), 0o644)
	for _, ids := range [][]string{{e1.ID, e2.ID, e3.ID}, {e3.ID, e1.ID, e2.ID}} {
		plan, err := j.PlanRevert(context.Background(), ids, readDisk)
		if err != nil || len(plan.Conflicts) > 0 {
			t.Fatalf("PlanRevert(%v) = %+v, %v", ids, plan, err)
		}
		if len(plan.Files) != 2 || string(plan.Files[0].Content) != "1\n2\n3\n4\n5\n6\n7\n8\nuser\n" || plan.Files[1].Exists {
			t.Errorf("PlanRevert(%v) files = %+v, want f restored with the user's line and g deleted", ids, plan.Files)
		}
	}
	// All or nothing: one conflicting file empties the plan.
	os.WriteFile(g, []byte("user's now\n"), 0o644)
	plan, err := j.PlanRevert(context.Background(), []string{e1.ID, e2.ID, e3.ID}, readDisk)
	if err != nil || len(plan.Conflicts) != 1 || plan.Files != nil {
		t.Errorf("PlanRevert with g changed = %+v, %v, want one conflict and no file", plan, err)
	}
	if _, err := j.PlanRevert(context.Background(), []string{e1.ID, "20000101T000000.000000Z-0000"}, readDisk); !errors.Is(err, ErrNotFound) {
		t.Errorf("PlanRevert(unknown id) = %v, want ErrNotFound", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.PlanRevert(ctx, []string{e1.ID}, readDisk); !errors.Is(err, context.Canceled) {
		t.Errorf("PlanRevert(cancelled) = %v, want context.Canceled", err)
	}
}

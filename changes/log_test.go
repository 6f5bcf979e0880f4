package changes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTornTailIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := openTest(t, dir, Options{})
	first := commitChange(t, j, "edit", "/w/a", "a\n", "b\n")
	commitChange(t, j, "edit", "/w/a", "b\n", "c\n")
	j.Close()
	log := filepath.Join(dir, logName)
	fi, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	// The last record is the second entry's commit: cutting it mid-record
	// leaves that entry pending, as if its process died mid-write.
	if err := os.Truncate(log, fi.Size()-5); err != nil {
		t.Fatal(err)
	}
	j = openTest(t, dir, Options{})
	es, _, err := j.List("", 0)
	if err != nil || len(es) != 1 || es[0].ID != first.ID {
		t.Fatalf("List() after a torn tail = %v, %v; want only %s", es, err, first.ID)
	}
	third := commitChange(t, j, "edit", "/w/a", "c\n", "d\n")
	j2 := openTest(t, dir, Options{})
	es, _, err = j2.List("", 0)
	if err != nil || len(es) != 2 || es[0].ID != third.ID {
		t.Fatalf("List() after appending past a torn tail = %v, %v; want %s and %s", es, err, third.ID, first.ID)
	}
	if b, err := j2.Blob(third.Files[0].After); err != nil || string(b) != "d\n" {
		t.Errorf("Blob(after) = %q, %v, want %q", b, err, "d\n")
	}
}

func TestDamagedRecordSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := openTest(t, dir, Options{})
	a := commitChange(t, j, "edit", "/w/a", "a\n", "b\n")
	b := commitChange(t, j, "edit", "/w/b", "a\n", "x\n")
	j.Close()
	raw, _ := os.ReadFile(filepath.Join(dir, logName))
	i := strings.Index(string(raw), `"id":"`+a.ID)
	raw[i+7] ^= 0x20 // inside a's begin record: its checksum fails
	os.WriteFile(filepath.Join(dir, logName), raw, 0o600)
	j = openTest(t, dir, Options{})
	es, _, err := j.List("", 0)
	if err != nil || len(es) != 1 || es[0].ID != b.ID {
		t.Fatalf("List() with a damaged record = %v, %v; want only %s", es, err, b.ID)
	}
}

func TestReaderSeesOtherProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := openTest(t, dir, Options{})
	commitChange(t, j, "edit", "/w/mine", "a\n", "b\n")
	other := openTest(t, dir, Options{})
	commitChange(t, other, "edit", "/w/theirs", "a\n", "b\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	es, _, err := j.List("", 0)
	if err != nil || len(es) != 22 {
		t.Fatalf("List() = %d entries, %v; want 22 (1 mine, 1 of another Journal, 20 of another process)", len(es), err)
	}
	for _, e := range es {
		if _, err := j.Blob(e.Files[0].After); err != nil {
			t.Errorf("Blob of %s: %v", e.ID, err)
		}
	}
}

func TestCompactionKeepsLiveDropsDead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := openTest(t, dir, Options{})
	other := openTest(t, dir, Options{}) // reads the log before and after the compaction
	a := commitChange(t, j, "edit", "/w/a", "a\n", "a2\n")
	b := commitChange(t, j, "write", "/w/b", "", "b\n")
	aborted, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: "/w/c", Before: []byte("only aborted\n"), After: []byte("c2\n"), BeforeExists: true, AfterExists: true}})
	if err != nil {
		t.Fatal(err)
	}
	aborted.Abort()
	pending, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: "/w/d", Before: []byte("d\n"), After: []byte("d2\n"), BeforeExists: true, AfterExists: true}})
	if err != nil {
		t.Fatal(err)
	}
	if es, _, _ := other.List("", 0); len(es) != 2 {
		t.Fatalf("other.List() = %d entries, want 2", len(es))
	}
	before, _ := os.Stat(filepath.Join(dir, logName))
	compactNow(t, j)
	after, _ := os.Stat(filepath.Join(dir, logName))
	if after.Size() >= before.Size() {
		t.Errorf("log of %d bytes after compaction, %d before; want smaller", after.Size(), before.Size())
	}
	for _, blob := range []string{blobID([]byte("only aborted\n")), blobID([]byte("c2\n"))} {
		if _, err := j.Blob(blob); err == nil {
			t.Errorf("Blob(%s) of an aborted entry survived the compaction", blob)
		}
	}
	// The pending entry commits after the compaction; every live blob reads.
	d, err := pending.Commit()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Journal{j, other} {
		es, _, err := r.List("", 0)
		if err != nil || len(es) != 3 || es[0].ID != d.ID || es[1].ID != b.ID || es[2].ID != a.ID {
			t.Fatalf("List() after compaction = %v, %v; want %s, %s, %s", es, err, d.ID, b.ID, a.ID)
		}
		for _, want := range []string{"a\n", "a2\n", "b\n", "d\n", "d2\n"} {
			if got, err := r.Blob(blobID([]byte(want))); err != nil || string(got) != want {
				t.Errorf("Blob(%q) after compaction = %q, %v", want, got, err)
			}
		}
	}
	// The other Journal appends to the new log, not the replaced one.
	e := commitChange(t, other, "edit", "/w/e", "e\n", "e2\n")
	if _, err := j.Get(e.ID); err != nil {
		t.Errorf("Get(%s) of an entry the other Journal appended after the compaction: %v", e.ID, err)
	}
}

func TestDeltaChainRoundTrips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := openTest(t, dir, Options{MaxBytes: 24 << 10})
	var text strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "line %d of a long file\n", i)
	}
	contents := []string{text.String()}
	var ids []string
	for i := range 200 {
		prev := contents[len(contents)-1]
		next := strings.Replace(prev, fmt.Sprintf("line %d of", 1000+i), fmt.Sprintf("LINE %d of", 1000+i), 1)
		e := commitChange(t, j, "edit", "/w/f", prev, next)
		contents = append(contents, next)
		ids = append(ids, e.Files[0].After)
	}
	es, dropped, err := j.List("", 0)
	if err != nil || dropped == 0 {
		t.Fatalf("List() = %d entries, %d dropped, %v; want some dropped by the size bound", len(es), dropped, err)
	}
	for i, id := range ids[dropped:] {
		if got, err := j.Blob(id); err != nil || string(got) != contents[dropped+i+1] {
			t.Fatalf("Blob(after of edit %d) = %d bytes, %v; want the content", dropped+i, len(got), err)
		}
	}
	if u := folderBytes(t, dir); u > 24<<10 {
		t.Errorf("journal uses %d bytes, want at most %d", u, 24<<10)
	}
}

const beginEnv = "CHANGES_TEST_BEGIN"

// TestHelperBegin begins an entry and exits without committing it, as a
// process killed between Begin and Commit, when run by
// TestCrashBetweenBeginAndCommit.
func TestHelperBegin(t *testing.T) {
	t.Parallel()
	dir, path, ok := strings.Cut(os.Getenv(beginEnv), "|")
	if !ok {
		t.Skip("helper process only")
	}
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: path, Before: []byte("before\n"), After: []byte("after\n"), BeforeExists: true, AfterExists: true, Where: WhereDisk}}); err != nil {
		t.Fatal(err)
	}
	os.Exit(0)
}

func TestCrashBetweenBeginAndCommit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		onDisk    string
		published bool
	}{
		{"file written: published", "after\n", true},
		{"file not written: removed", "before\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, work := t.TempDir(), t.TempDir()
			path := filepath.Join(work, "f.txt")
			os.WriteFile(path, []byte(tc.onDisk), 0o600)
			j := openTest(t, dir, Options{})
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBegin$")
			cmd.Env = append(os.Environ(), beginEnv+"="+dir+"|"+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("helper process: %v\n%s", err, out)
			}
			if n := pendingCount(t, j); n != 1 {
				t.Fatalf("%d pending entries after the crash, want 1", n)
			}
			later := openTest(t, dir, Options{Now: func() time.Time { return time.Now().Add(2 * time.Hour) }})
			for _, r := range []*Journal{later, j} {
				es, _, err := r.List("", 0)
				if err != nil || (len(es) == 1) != tc.published || pendingCount(t, r) != 0 {
					t.Errorf("List() = %d entries, %v, %d pending; want published %v, none pending", len(es), err, pendingCount(t, r), tc.published)
				}
			}
		})
	}
}

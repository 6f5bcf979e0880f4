package changes

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func openTest(t *testing.T, dir string, o Options) *Journal {
	t.Helper()
	j, err := Open(dir, o)
	if err != nil {
		t.Fatalf("Open(%q) = %v", dir, err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// commitChange journals one change of path from before to after.
func commitChange(t *testing.T, j *Journal, tool, path, before, after string) Entry {
	t.Helper()
	p, err := j.Begin(Meta{Tool: tool, CallID: "c1", Session: "s1"}, []FileChange{{
		Path: path, Before: []byte(before), After: []byte(after),
		BeforeExists: before != "", AfterExists: after != "", Where: WhereDisk,
	}})
	if err != nil {
		t.Fatalf("Begin(%s) = %v", path, err)
	}
	e, err := p.Commit()
	if err != nil {
		t.Fatalf("Commit(%s) = %v", path, err)
	}
	return e
}

// folderBytes sums the sizes of the regular files below dir.
func folderBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if fi, ierr := d.Info(); err == nil && ierr == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// blobCount returns how many blobs the log holds, as j reads it now.
func blobCount(t *testing.T, j *Journal) int {
	t.Helper()
	n := 0
	if err := j.read(func(v *logView) error { n = len(v.blobs); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// pendingCount returns how many entries of the log are pending, as j reads
// it now.
func pendingCount(t *testing.T, j *Journal) int {
	t.Helper()
	n := 0
	err := j.read(func(v *logView) error {
		for _, e := range v.entries {
			if e.state == statePending {
				n++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// compactNow compacts j's log whatever its dead share.
func compactNow(t *testing.T, j *Journal) {
	t.Helper()
	if err := j.locked(func() error { return j.compact("", false) }); err != nil {
		t.Fatalf("compact: %v", err)
	}
}

func TestBeginCommitAbort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		commit      bool
		wantEntries int
	}{
		{"commit publishes", true, 2},
		{"abort leaves nothing", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			j := openTest(t, dir, Options{Root: "/w"})
			commitChange(t, j, "write", "/w/shared.txt", "", "shared\n")
			blobsBefore := blobCount(t, j)
			p, err := j.Begin(Meta{Tool: "multi_edit"}, []FileChange{
				{Path: "/w/a.go", Before: []byte("a\nb\n"), After: []byte("a\nB\nc\n"), BeforeExists: true, AfterExists: true, Where: WhereEditor},
				{Path: "/w/new.txt", After: []byte("shared\n"), AfterExists: true},
				{Path: "/w/same.txt", Before: []byte("x"), After: []byte("x"), BeforeExists: true, AfterExists: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.commit {
				e, err := p.Commit()
				if err != nil {
					t.Fatal(err)
				}
				want := []FileRecord{
					{Path: "/w/a.go", Where: WhereEditor, Before: blobID([]byte("a\nb\n")), After: blobID([]byte("a\nB\nc\n")), Added: 2, Removed: 1},
					{Path: "/w/new.txt", Where: WhereDisk, After: blobID([]byte("shared\n")), Added: 1},
				}
				if diff := cmp.Diff(want, e.Files); diff != "" {
					t.Errorf("Commit().Files differ (-want +got):\n%s", diff)
				}
				if e.Summary != "multi_edit a.go and new.txt (+3 -1)" {
					t.Errorf("Summary = %q, want %q", e.Summary, "multi_edit a.go and new.txt (+3 -1)")
				}
				got, err := j.Get(e.ID)
				if err != nil || !cmp.Equal(got, e, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })) {
					t.Errorf("Get(%s) = %+v, %v, want %+v", e.ID, got, err, e)
				}
				if b, err := j.Blob(e.Files[0].After); err != nil || string(b) != "a\nB\nc\n" {
					t.Errorf("Blob(after) = %q, %v, want %q", b, err, "a\nB\nc\n")
				}
			} else {
				p.Abort()
				p.Abort() // a second Abort is a no-op
				compactNow(t, j)
				if n := blobCount(t, j); n != blobsBefore {
					t.Errorf("after Abort and a compaction %d blobs, want %d (the shared one kept, no orphan)", n, blobsBefore)
				}
				if n := pendingCount(t, j); n != 0 {
					t.Errorf("after Abort %d pending files, want 0", n)
				}
				if _, err := j.Blob(blobID([]byte("shared\n"))); err != nil {
					t.Errorf("Blob(shared) after Abort = %v, want the blob an entry uses", err)
				}
			}
			es, _, err := j.List("", 0)
			if err != nil || len(es) != tc.wantEntries {
				t.Errorf("List() = %d entries, %v, want %d", len(es), err, tc.wantEntries)
			}
		})
	}
}

func TestBeginRefuses(t *testing.T) {
	t.Parallel()
	j := openTest(t, t.TempDir(), Options{})
	for _, files := range [][]FileChange{
		nil,
		{{Path: "rel.go", After: []byte("x"), AfterExists: true}},
		{{Path: "/a", Before: []byte("x"), After: []byte("x"), BeforeExists: true, AfterExists: true}},
	} {
		if _, err := j.Begin(Meta{Tool: "edit"}, files); err == nil {
			t.Errorf("Begin(%+v) succeeded, want an error", files)
		}
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	j := openTest(t, t.TempDir(), Options{})
	var ids []string
	for i := range 5 {
		ids = append(ids, commitChange(t, j, "edit", "/w/f.txt", strconv.Itoa(i)+"\n", strconv.Itoa(i+1)+"\n").ID)
	}
	newest := slices.Clone(ids)
	slices.Reverse(newest)
	for _, tc := range []struct {
		since string
		limit int
		want  []string
	}{
		{"", 0, newest},
		{"", 2, newest[:2]},
		{ids[1], 0, newest[:3]},
		{ids[1], 1, newest[:1]},
		{ids[4], 0, nil},
		{ids[0][:8], 0, newest}, // a date prefix
	} {
		es, dropped, err := j.List(tc.since, tc.limit)
		var got []string
		for _, e := range es {
			got = append(got, e.ID)
		}
		if err != nil || dropped != 0 || !slices.Equal(got, tc.want) {
			t.Errorf("List(%q, %d) = %v, %d, %v, want %v", tc.since, tc.limit, got, dropped, err, tc.want)
		}
	}
	if _, err := j.Get("20000101T000000.000000Z-0000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(unknown) = %v, want ErrNotFound", err)
	}
	if _, err := j.Get("../lock"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(../lock) = %v, want ErrNotFound", err)
	}
}

func TestIDsIncreaseWhenClockGoesBack(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 0, 40, 12, 0, time.UTC)
	j := openTest(t, t.TempDir(), Options{Now: func() time.Time { now = now.Add(-time.Second); return now }})
	a := commitChange(t, j, "edit", "/w/f", "a\n", "b\n")
	b := commitChange(t, j, "edit", "/w/f", "b\n", "c\n")
	if !(a.ID < b.ID) || !validID(a.ID) {
		t.Errorf("ids %q then %q, want increasing valid ids", a.ID, b.ID)
	}
}

func TestMaxBytesDropsOldest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := openTest(t, dir, Options{MaxBytes: 20 << 10})
	var ids []string
	for i := range 30 {
		data := make([]byte, 2<<10)
		rand.Read(data) // incompressible
		ids = append(ids, commitChange(t, j, "write", fmt.Sprintf("/w/f%d", i), "", string(data)).ID)
	}
	es, dropped, err := j.List("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if dropped == 0 || len(es)+dropped != 30 {
		t.Errorf("List() = %d entries, %d dropped; want some dropped and 30 in all", len(es), dropped)
	}
	if len(es) == 0 || es[0].ID != ids[29] {
		t.Fatalf("the newest entry is not kept")
	}
	if oldest := es[len(es)-1].ID; oldest != ids[dropped] {
		t.Errorf("oldest kept %s, want %s: the oldest are dropped first", oldest, ids[dropped])
	}
	if u := folderBytes(t, dir); u > 20<<10 {
		t.Errorf("journal uses %d bytes, want at most %d", u, 20<<10)
	}
	if n := blobCount(t, j); n != len(es) {
		t.Errorf("%d blobs for %d entries, want the dropped entries' blobs removed", n, len(es))
	}
}

func TestPendingOfDeadProcessSettled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		onDisk    string
		published bool
	}{
		{"written: published", "after\n", true},
		{"not written: removed", "before\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, work := t.TempDir(), t.TempDir()
			path := filepath.Join(work, "f.txt")
			os.WriteFile(path, []byte(tc.onDisk), 0o600)
			j := openTest(t, dir, Options{})
			if _, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: path, Before: []byte("before\n"), After: []byte("after\n"), BeforeExists: true, AfterExists: true, Where: WhereDisk}}); err != nil {
				t.Fatal(err)
			}
			// Young pending entries belong to a live process: left alone.
			openTest(t, dir, Options{})
			if n := pendingCount(t, j); n != 1 {
				t.Fatalf("a young pending entry was settled")
			}
			later := openTest(t, dir, Options{Now: func() time.Time { return time.Now().Add(2 * time.Hour) }})
			es, _, _ := later.List("", 0)
			if got := len(es) == 1; got != tc.published {
				t.Errorf("published = %v, want %v", got, tc.published)
			}
			if n := pendingCount(t, j); n != 0 {
				t.Errorf("%d pending entries left, want 0", n)
			}
			if !tc.published {
				compactNow(t, later)
				if n := blobCount(t, j); n != 0 {
					t.Errorf("%d blobs left by a removed entry, want 0", n)
				}
			}
		})
	}
}

func TestModes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "journal")
	j := openTest(t, dir, Options{})
	commitChange(t, j, "edit", "/w/f", "a\n", "b\n")
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		fi, _ := d.Info()
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700 | os.ModeDir
		}
		if fi.Mode() != want {
			t.Errorf("%s has mode %v, want %v", p, fi.Mode(), want)
		}
		return nil
	})
}

const helperEnv = "CHANGES_TEST_JOURNAL"

// TestHelperProcess commits entries from a separate process when run by
// TestJournalsInterleave; otherwise it does nothing.
func TestHelperProcess(t *testing.T) {
	t.Parallel()
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	j := openTest(t, dir, Options{})
	for i := range 20 {
		commitChange(t, j, "edit", fmt.Sprintf("/w/p%d-%d", os.Getpid(), i), "", "x\n")
	}
}

func TestJournalsInterleave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const goroutines, each, procs = 4, 20, 2
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			j, err := Open(dir, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer j.Close()
			for i := range each {
				p, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: fmt.Sprintf("/w/g%d-%d", g, i), After: []byte(fmt.Sprintf("%d %d\n", g, i)), AfterExists: true}})
				if err == nil {
					_, err = p.Commit()
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	for range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("helper process: %v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	j := openTest(t, dir, Options{})
	es, _, err := j.List("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := goroutines*each + procs*20; len(es) != want {
		t.Errorf("List() = %d entries, want %d", len(es), want)
	}
	seen := map[string]bool{}
	for i, e := range es {
		if seen[e.ID] {
			t.Errorf("id %s given twice", e.ID)
		}
		seen[e.ID] = true
		if i > 0 && !e.Time.Before(es[i-1].Time) {
			t.Errorf("entry %s not older than %s", e.ID, es[i-1].ID)
		}
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	j := openTest(t, t.TempDir(), Options{Root: "/w"})
	p, err := j.Begin(Meta{Tool: "apply_patch"}, []FileChange{
		{Path: "/w/a.txt", Before: []byte("one\r\ntwo\r\n"), After: []byte("one\r\n2\r\n"), BeforeExists: true, AfterExists: true},
		{Path: "/w/bin", Before: []byte("\x00\x01"), After: []byte("\x00\x02"), BeforeExists: true, AfterExists: true},
		{Path: "/w/gone.txt", Before: []byte("bye"), BeforeExists: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := p.Commit()
	got, err := j.Diff(e.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- a/a.txt\n+++ b/a.txt\n", "-two\n+2\n", "Binary files a/bin and b/bin differ\n", "--- a/gone.txt\n+++ /dev/null\n", "-bye\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("Diff() =\n%s\nwant it to contain %q", got, want)
		}
	}
}

const killedEnv = "CHANGES_TEST_KILLED"

// TestHelperKilledMidCommit begins an entry, writes the file as a commit
// would, says so and waits to be killed (-9) before its commit record:
// run by TestKilledMidCommitSettledAtOnce.
func TestHelperKilledMidCommit(t *testing.T) {
	t.Parallel()
	spec := os.Getenv(killedEnv)
	if spec == "" {
		t.Skip("helper process only")
	}
	dir, path, ok := strings.Cut(spec, "|")
	if !ok {
		t.Fatal("bad helper spec")
	}
	j := openTest(t, dir, Options{Sync: true})
	if _, err := j.Begin(Meta{Tool: "edit"}, []FileChange{{Path: path, Before: []byte("before\n"), After: []byte("after\n"), BeforeExists: true, AfterExists: true, Where: WhereDisk}}); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(killedEnv+"_WRITE") == "1" {
		os.WriteFile(path, []byte("after\n"), 0o600)
	}
	fmt.Println("READY")
	time.Sleep(time.Minute)
}

// TestKilledMidCommitSettledAtOnce kills a process between its change and
// the journal's commit record: the next Open — not an hour later — lists
// the change when the file holds it, and drops the entry when it does not.
func TestKilledMidCommitSettledAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		write bool
	}{{"renamed, then killed", true}, {"killed before the rename", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, work := t.TempDir(), t.TempDir()
			path := filepath.Join(work, "f.txt")
			os.WriteFile(path, []byte("before\n"), 0o600)
			cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperKilledMidCommit$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), killedEnv+"="+dir+"|"+path, killedEnv+"_WRITE="+map[bool]string{true: "1"}[tc.write])
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitFor(out, "READY") {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the helper never began its entry")
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			j := openTest(t, dir, Options{})
			es, _, _ := j.List("", 0)
			if got := len(es) == 1; got != tc.write {
				t.Errorf("listed = %v, want %v (entries %+v)", got, tc.write, es)
			}
			if n := pendingCount(t, j); n != 0 {
				t.Errorf("%d pending entries left after Open, want 0", n)
			}
		})
	}
}

// waitFor reads r until a line holds want (or r ends).
func waitFor(r io.Reader, want string) bool {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			return true
		}
	}
	return false
}

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// names lists the entries of dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

func TestWriteFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, dir string) // files present before the write
		target  string
		data    string
		perm    fs.FileMode
		wantErr bool
		want    []string // the folder's entries afterwards
	}{
		{name: "create", target: "a.json", data: `{"pid":1}`, perm: 0o600, want: []string{"a.json"}},
		{name: "create 0644", target: "a.txt", data: "hello\n", perm: 0o644, want: []string{"a.txt"}},
		{name: "empty", target: "a.txt", data: "", perm: 0o600, want: []string{"a.txt"}},
		{
			name: "overwrite keeps other files",
			setup: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old content, longer than the new"), 0o644)
				os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b"), 0o644)
			},
			target: "a.txt", data: "new", perm: 0o600, want: []string{"a.txt", "b.txt"},
		},
		{
			name:   "long name",
			target: strings.Repeat("é", 120) + ".txt", data: "x", perm: 0o600,
			want: []string{strings.Repeat("é", 120) + ".txt"},
		},
		{
			name:   "target is a folder",
			setup:  func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, "a.txt"), 0o755) },
			target: "a.txt", data: "x", perm: 0o600, wantErr: true, want: []string{"a.txt"},
		},
		{
			name:   "target is a non-empty folder",
			setup:  func(t *testing.T, dir string) { os.MkdirAll(filepath.Join(dir, "a.txt", "in"), 0o755) },
			target: "a.txt", data: "x", perm: 0o600, wantErr: true, want: []string{"a.txt"},
		},
		{name: "folder missing", target: "no/a.txt", data: "x", perm: 0o600, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			target := filepath.Join(dir, tc.target)
			err := WriteFile(target, []byte(tc.data), tc.perm)
			if (err != nil) != tc.wantErr {
				t.Fatalf("WriteFile(%q) = %v, want error %v", tc.target, err, tc.wantErr)
			}
			if got := names(t, dir); !slices.Equal(got, tc.want) {
				t.Errorf("after WriteFile(%q) the folder holds %q, want %q", tc.target, got, tc.want)
			}
			if tc.wantErr {
				return
			}
			got, err := os.ReadFile(target)
			if err != nil || string(got) != tc.data {
				t.Errorf("ReadFile(%q) = %q, %v, want %q", tc.target, got, err, tc.data)
			}
			if runtime.GOOS == "windows" {
				return
			}
			fi, err := os.Stat(target)
			if err != nil || fi.Mode().Perm() != tc.perm {
				t.Errorf("Stat(%q).Mode = %v, %v, want %v", tc.target, fi.Mode().Perm(), err, tc.perm)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); tc.setup != nil && string(b) != "b" {
				t.Errorf("b.txt = %q, want %q", b, "b")
			}
		})
	}
}

func TestStage(t *testing.T) {
	const stale = ".a.txt.stage"
	for _, tc := range []struct {
		name   string
		stale  bool // a leftover sits at the temporary name
		stuck  bool // the leftover cannot be removed (a folder with a file in it)
		commit bool // Commit rather than Abort
		// keepsStale: an abort may leave the leftover (an unnamed file never
		// touches it), but never a file of its own
		keepsStale bool
		want       []string
		body       string // a.txt afterwards
	}{
		{name: "commit", commit: true, want: []string{"a.txt"}, body: "new"},
		{name: "commit over a stale temporary file", stale: true, commit: true, want: []string{"a.txt"}, body: "new"},
		{name: "abort", want: []string{"a.txt"}, body: "old"},
		{name: "abort with a stale temporary file", stale: true, keepsStale: true, want: []string{"a.txt"}, body: "old"},
		{name: "commit beside a leftover that cannot be removed", stuck: true, commit: true, want: []string{stale, "a.txt"}, body: "new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old"), 0o644)
			if tc.stale {
				os.WriteFile(filepath.Join(dir, stale), []byte("left by a killed process"), 0o600)
			}
			if tc.stuck {
				stuckLeftover(t, filepath.Join(dir, stale))
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			f, err := Stage(root, "a.txt", stale, []byte("new"), 0o644)
			if err != nil {
				t.Fatalf("Stage = %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "old" {
				t.Errorf("a.txt after Stage = %q, want %q", b, "old")
			}
			if tc.commit {
				if err := f.Commit(); err != nil {
					t.Fatalf("Commit = %v", err)
				}
				if err := f.Commit(); err == nil {
					t.Errorf("second Commit = nil, want an error")
				}
			}
			f.Abort()
			f.Abort()
			got := names(t, dir)
			if tc.keepsStale {
				got = slices.DeleteFunc(got, func(n string) bool { return n == stale })
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("the folder holds %q, want %q", got, tc.want)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != tc.body {
				t.Errorf("a.txt = %q, want %q", b, tc.body)
			}
			if err := SyncDir(root, "."); err != nil {
				t.Errorf("SyncDir = %v", err)
			}
		})
	}
}

func TestStageRefusesAPath(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, temp := range []string{"", ".", "..", "sub/.a.tmp"} {
		if _, err := Stage(root, "a.txt", temp, nil, 0o600); err == nil {
			t.Errorf("Stage(temp %q) = nil, want an error", temp)
		}
	}
}

// TestStageNamed runs the named staging that platforms and filesystems
// without unnamed files use, whatever this one has.
func TestStageNamed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stale  bool
		stuck  bool
		commit bool
		want   []string
		body   string
	}{
		{name: "commit", commit: true, want: []string{"a.txt"}, body: "new"},
		{name: "commit over a stale temporary file", stale: true, commit: true, want: []string{"a.txt"}, body: "new"},
		{name: "abort removes the stale file too", stale: true, want: []string{"a.txt"}, body: "old"},
		{name: "commit beside a leftover that cannot be removed", stuck: true, commit: true, want: []string{".a.txt.stage", "a.txt"}, body: "new"},
		{name: "abort beside a leftover that cannot be removed", stuck: true, want: []string{".a.txt.stage", "a.txt"}, body: "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old"), 0o644)
			if tc.stale {
				os.WriteFile(filepath.Join(dir, ".a.txt.stage"), []byte("left by a killed process"), 0o600)
			}
			if tc.stuck {
				stuckLeftover(t, filepath.Join(dir, ".a.txt.stage"))
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			f := &File{root: root, target: "a.txt", temp: ".a.txt.stage"}
			if err := f.stageNamed([]byte("new"), 0o640); err != nil {
				t.Fatalf("stageNamed = %v", err)
			}
			if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.temp))); runtime.GOOS != "windows" && (err != nil || fi.Mode().Perm() != 0o640) {
				t.Errorf("staged file: %v, %v, want mode 0640", fi, err)
			}
			if tc.commit {
				if err := f.Commit(); err != nil {
					t.Fatalf("Commit = %v", err)
				}
			}
			f.Abort()
			if got := names(t, dir); !slices.Equal(got, tc.want) {
				t.Errorf("the folder holds %q, want %q", got, tc.want)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != tc.body {
				t.Errorf("a.txt = %q, want %q", b, tc.body)
			}
		})
	}
}

// stuckLeftover puts a leftover at name that Remove cannot take away: a
// folder with a file in it (as a file another process holds open is on
// Windows).
func stuckLeftover(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(name, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(name, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fixture builds:
//
//	base/ws/            the workspace root
//	base/ws/a.txt
//	base/ws/sub/b.txt
//	base/ws/out-link -> base/outside       (symlinked folder pointing out)
//	base/ws/file-link -> base/outside/secret.txt
//	base/ws/in-link -> base/ws/sub          (symlink staying inside)
//	base/outside/secret.txt
//	base/approved/notes.md
//	base/link-to-ws -> base/ws              (the workspace reached through a symlink)
func fixture(t *testing.T) (base string, s *Set) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ws/sub", "outside", "approved"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"ws/a.txt", "ws/sub/b.txt", "outside/secret.txt", "approved/notes.md"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/out-link":  filepath.Join(base, "outside"),
		"ws/file-link": filepath.Join(base, "outside/secret.txt"),
		"ws/in-link":   filepath.Join(base, "ws/sub"),
		"link-to-ws":   filepath.Join(base, "ws"),
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(base, l)); err != nil {
			t.Fatal(err)
		}
	}
	s, err = NewSet([]string{filepath.Join(base, "ws")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return base, s
}

func TestResolve(t *testing.T) {
	base, s := fixture(t)
	t.Setenv("HOME", base)
	s.home = base
	s.SetReadOnly([]string{filepath.Join(base, "approved")}, nil)
	ws := filepath.Join(base, "ws")
	for _, tc := range []struct {
		raw     string
		access  Access
		wantRel string // "" when an error is expected
		code    string
	}{
		{"a.txt", Write, "a.txt", ""},
		{"./sub/../a.txt", Write, "a.txt", ""},
		{"sub//b.txt", Read, "sub/b.txt", ""},
		{ws + "/sub/b.txt", Write, "sub/b.txt", ""},
		{"file://" + ws + "/a.txt", Read, "a.txt", ""},
		{"file://" + ws + "/with%20space.txt", Write, "with space.txt", ""},
		{"new/folder/file.go", Write, "new/folder/file.go", ""},
		{".", Read, ".", ""},
		{"in-link/b.txt", Write, "sub/b.txt", ""},
		{filepath.Join(base, "link-to-ws", "a.txt"), Write, "a.txt", ""},
		{"~/ws/a.txt", Write, "a.txt", ""},
		// ".." in many spellings
		{"../outside/secret.txt", Write, "", CodePathEscapesWorkspace},
		{"sub/../../outside/secret.txt", Read, "", CodePathNotAllowed},
		{"./../ws/../outside", Write, "", CodePathEscapesWorkspace},
		{"sub/./../.././outside/secret.txt", Write, "", CodePathEscapesWorkspace},
		{"/../../" + base + "/outside/secret.txt", Read, "", CodePathNotAllowed},
		{"..", Read, "", CodePathNotAllowed},
		{"/etc/passwd", Read, "", CodePathNotAllowed},
		{"/etc/passwd", Write, "", CodePathEscapesWorkspace},
		// symlinks leading out
		{"out-link/secret.txt", Read, "", CodePathNotAllowed},
		{"out-link/secret.txt", Write, "", CodePathEscapesWorkspace},
		{"file-link", Write, "", CodePathEscapesWorkspace},
		{"out-link/new.txt", Write, "", CodePathEscapesWorkspace},
		// approved read paths: readable, never writable
		{filepath.Join(base, "approved/notes.md"), Read, "notes.md", ""},
		{filepath.Join(base, "approved/notes.md"), Write, "", CodePathEscapesWorkspace},
		// malformed
		{"", Read, "", CodeInvalidInput},
		{"a\x00b", Read, "", CodeInvalidInput},
		{"https://example.com/a", Read, "", CodeInvalidInput},
		{"file://otherhost/a.txt", Read, "", CodeInvalidInput},
		{"a\nb", Write, "", CodeInvalidInput},
	} {
		got, err := s.Resolve(tc.raw, tc.access)
		if tc.code != "" {
			var pe *PathError
			if !errors.As(err, &pe) || pe.Code != tc.code {
				t.Errorf("Resolve(%q, %d) = %+v, %v; want code %s", tc.raw, tc.access, got, err, tc.code)
			}
			continue
		}
		if err != nil || got.Rel != tc.wantRel {
			t.Errorf("Resolve(%q, %d) = %q, %v; want %q", tc.raw, tc.access, got.Rel, err, tc.wantRel)
		}
	}
}

// TestRootRefusesSwappedSymlink checks the guarantee behind Resolve: a
// path that resolved inside the root cannot be used to leave it when a
// symlink is swapped in between the check and the use.
func TestRootRefusesSwappedSymlink(t *testing.T) {
	t.Parallel()
	base, s := fixture(t)
	tgt, err := s.Resolve("sub/b.txt", Write)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(base, "ws", "sub")
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside"), sub); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "outside", "b.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tgt.Root.FS.ReadFile(tgt.Rel); err == nil {
		t.Fatalf("reading %s through the root followed a swapped symlink out of the workspace", tgt.Rel)
	}
	if err := tgt.Root.FS.WriteFile(tgt.Rel, []byte("x"), 0o644); err == nil {
		t.Fatalf("writing %s through the root followed a swapped symlink out of the workspace", tgt.Rel)
	}
	if b, _ := os.ReadFile(filepath.Join(base, "outside", "b.txt")); string(b) != "outside" {
		t.Fatalf("outside file changed to %q", b)
	}
}

func TestSymlinkedParentFolder(t *testing.T) {
	t.Parallel()
	base, _ := fixture(t)
	// The workspace itself is opened through a symlink: paths spelled through
	// the link and through the real folder both resolve, and neither escapes.
	s, err := NewSet([]string{filepath.Join(base, "link-to-ws")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, raw := range []string{filepath.Join(base, "link-to-ws", "sub", "b.txt"), filepath.Join(base, "ws", "sub", "b.txt"), "sub/b.txt"} {
		got, err := s.Resolve(raw, Write)
		if err != nil || got.Rel != "sub/b.txt" {
			t.Errorf("Resolve(%q) = %q, %v; want sub/b.txt", raw, got.Rel, err)
		}
	}
	if _, err := s.Resolve(filepath.Join(base, "link-to-ws", "..", "outside", "secret.txt"), Write); err == nil {
		t.Errorf("a path climbing out of the symlinked root was accepted")
	}
}

func TestWorktreeMainCheckoutIsReadable(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(base, "main")
	wt := filepath.Join(base, "wt")
	gitdir := filepath.Join(main, ".git", "worktrees", "wt")
	for _, d := range []string{gitdir, wt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
	os.WriteFile(filepath.Join(main, "shared.go"), []byte("package x"), 0o644)
	s, err := NewSet([]string{wt})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Resolve(filepath.Join(main, "shared.go"), Read)
	if err != nil || got.Rel != "shared.go" || got.Root.Kind != KindMainCheckout {
		t.Fatalf("Resolve(main checkout file, Read) = %+v, %v; want shared.go in the main checkout", got, err)
	}
	if _, err := s.Resolve(filepath.Join(main, "shared.go"), Write); err == nil {
		t.Fatalf("the main checkout of a worktree must not be writable")
	}
}

func TestApprovedSingleFile(t *testing.T) {
	t.Parallel()
	base, s := fixture(t)
	missing := s.SetReadOnly([]string{filepath.Join(base, "outside", "secret.txt"), filepath.Join(base, "nope")}, nil)
	if len(missing) != 1 {
		t.Fatalf("SetReadOnly missing = %v, want the one path that does not exist", missing)
	}
	if got, err := s.Resolve(filepath.Join(base, "outside", "secret.txt"), Read); err != nil || got.Rel != "secret.txt" {
		t.Fatalf("approved file: %+v, %v", got, err)
	}
	if _, err := s.Resolve(filepath.Join(base, "outside", "other.txt"), Read); err == nil {
		t.Fatalf("a sibling of an approved file must not be readable")
	}
}

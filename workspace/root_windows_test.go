package workspace

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tempDir is t.TempDir but removed file by file: under Wine 8.0, Go's
// os.RemoveAll fails ("Invalid function": Wine has no
// FileDispositionInformationEx), while os.Remove (DeleteFileW) works.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "whale-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		_ = filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			_ = os.Remove(paths[i])
		}
	})
	return dir
}

// winFixture builds base\ws (the workspace, with a.txt and sub\b.txt) and
// base\outside\secret.txt, with no links: Windows needs a privilege for
// symlinks.
func winFixture(t *testing.T) (base string, s *Set) {
	t.Helper()
	base, err := filepath.EvalSymlinks(tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{`ws\sub`, "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{`ws\a.txt`, `ws\sub\b.txt`, `outside\secret.txt`} {
		if err := os.WriteFile(filepath.Join(base, f), []byte(f), 0o644); err != nil {
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

func TestResolveWindowsPaths(t *testing.T) {
	t.Parallel()
	base, s := winFixture(t)
	ws := filepath.Join(base, "ws")
	vol := filepath.VolumeName(ws) // "C:"
	other := "Z:"
	if strings.EqualFold(vol, other) {
		other = "Y:"
	}
	for _, tc := range []struct {
		raw     string
		access  Access
		wantRel string // "" means refused with wantCode
		code    string
	}{
		{raw: `a.txt`, access: Write, wantRel: "a.txt"},
		{raw: `sub\b.txt`, access: Write, wantRel: "sub/b.txt"},
		{raw: `sub/b.txt`, access: Write, wantRel: "sub/b.txt"},
		{raw: ws + `\a.txt`, access: Write, wantRel: "a.txt"},
		// Drive letters and names compare without regard to case.
		{raw: strings.ToLower(vol) + ws[len(vol):] + `\a.txt`, access: Write, wantRel: "a.txt"},
		{raw: strings.ToUpper(ws) + `\SUB\B.TXT`, access: Write, wantRel: "SUB/B.TXT"},
		{raw: strings.ToUpper(ws) + `\new.txt`, access: Write, wantRel: "new.txt"},
		// file URIs as editors send them.
		{raw: "file:///" + filepath.ToSlash(ws) + "/a.txt", access: Write, wantRel: "a.txt"},
		{raw: "file:///" + strings.ToLower(vol[:1]) + "%3A" + filepath.ToSlash(ws[len(vol):]) + "/sub/b.txt", access: Write, wantRel: "sub/b.txt"},
		{raw: "file://server/share/a.txt", access: Read, code: CodeInvalidInput},
		// Out of the workspace, however written.
		{raw: `..\outside\secret.txt`, access: Read, code: CodePathNotAllowed},
		{raw: `..\outside\secret.txt`, access: Write, code: CodePathEscapesWorkspace},
		{raw: strings.ToUpper(base) + `\OUTSIDE\secret.txt`, access: Write, code: CodePathEscapesWorkspace},
		{raw: ws + `x\a.txt`, access: Write, code: CodePathEscapesWorkspace}, // a sibling sharing the prefix
		{raw: other + `\etc\passwd`, access: Read, code: CodePathNotAllowed},
		{raw: `..\..\..\..\..\..\` + other + `\etc`, access: Read, code: CodePathNotAllowed},
		{raw: ws + `\..\..\` + other + `\x`, access: Write, code: CodePathEscapesWorkspace},
		{raw: `\\server\share\a.txt`, access: Read, code: CodePathNotAllowed},
		// Rooted without a drive: the workspace's drive, so out of it.
		{raw: `\Windows\win.ini`, access: Read, code: CodePathNotAllowed},
		{raw: `/etc/passwd`, access: Write, code: CodePathEscapesWorkspace},
		// Relative to another drive's current folder: refused.
		{raw: other + `a.txt`, access: Read, code: CodeInvalidInput},
		{raw: `\\server\share\a.txt`, access: Write, code: CodePathEscapesWorkspace},
		{raw: `\\?\` + ws + `\a.txt`, access: Write, code: CodePathEscapesWorkspace},
		{raw: `\\.\` + vol + `\a.txt`, access: Write, code: CodePathEscapesWorkspace},
	} {
		got, err := s.Resolve(tc.raw, tc.access)
		if tc.wantRel == "" {
			var pe *PathError
			if !errors.As(err, &pe) || pe.Code != tc.code {
				t.Errorf("Resolve(%q, %v) = %+v, %v; want code %s", tc.raw, tc.access, got, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q, %v): %v", tc.raw, tc.access, err)
			continue
		}
		if !strings.EqualFold(got.Rel, tc.wantRel) || got.Root.Kind != KindWorkspace {
			t.Errorf("Resolve(%q, %v) = rel %q in %s, want %q in the workspace", tc.raw, tc.access, got.Rel, got.Root.Kind, tc.wantRel)
		}
	}
}

func TestRootRefusesEscapesOnWindows(t *testing.T) {
	t.Parallel()
	base, s := winFixture(t)
	r := s.Roots()[0]
	for _, name := range []string{`..\outside\secret.txt`, `sub\..\..\outside\secret.txt`, filepath.Join(base, `outside\secret.txt`), `Z:\etc\hostname`, `\\server\share\x`} {
		if f, err := r.FS.Open(name); err == nil {
			f.Close()
			t.Errorf("root.Open(%q) succeeded, want it refused", name)
		}
	}
	// Names inside open in any case.
	f, err := r.FS.Open(`SUB\B.TXT`)
	if err != nil {
		t.Fatalf("root.Open(SUB\\B.TXT): %v", err)
	}
	f.Close()
}

// TestJunctionOutOfWorkspace makes a directory junction in the workspace
// that points out of it (mklink /J: no privilege needed) and checks that
// Resolve names the real target, outside, and that the root refuses to open
// through it.
func TestJunctionOutOfWorkspace(t *testing.T) {
	t.Parallel()
	base, s := winFixture(t)
	link := filepath.Join(base, `ws\out-junction`)
	out, err := exec.Command("cmd.exe", "/c", "mklink", "/J", link, filepath.Join(base, "outside")).CombinedOutput()
	if err != nil {
		t.Skipf("mklink /J failed (%v: %s): this system cannot make junctions", err, out)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Skipf("mklink /J reported success but made nothing (%v): this system cannot make junctions", err)
	}
	if fi.Mode()&(os.ModeSymlink|os.ModeIrregular) == 0 {
		t.Skipf("mklink /J made %v, not a reparse point (Wine makes what it can)", fi.Mode())
	}
	if got, err := s.Resolve(`out-junction\secret.txt`, Write); err == nil {
		t.Errorf("Resolve(out-junction\\secret.txt) = %+v, want it refused", got)
	}
	if f, err := s.Roots()[0].FS.Open(`out-junction\secret.txt`); err == nil {
		f.Close()
		t.Error("root.Open(out-junction\\secret.txt) succeeded, want it refused")
	}
}

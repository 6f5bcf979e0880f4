package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestArchivesAreReproducible: the same files give the same bytes, in
// whatever order they come, with the commit's time and owner 0.
func TestArchivesAreReproducible(t *testing.T) {
	dir := t.TempDir()
	mtime := time.Date(2026, 12, 6, 8, 41, 1, 0, time.UTC)
	files := []archiveFile{{name: "whale-ls", mode: 0o755, data: []byte("bin")}, {name: "README.md", mode: 0o644, data: []byte("# r\n")}}
	reversed := []archiveFile{files[1], files[0]}
	for _, ext := range []string{".tar.gz", ".zip"} {
		a, b := filepath.Join(dir, "a"+ext), filepath.Join(dir, "b"+ext)
		write := writeTarGz
		if ext == ".zip" {
			write = writeZip
		}
		if err := write(a, "w", files, mtime); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
		if err := write(b, "w", reversed, mtime); err != nil {
			t.Fatal(err)
		}
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if !bytes.Equal(x, y) {
			t.Errorf("two %s archives of the same files differ", ext)
		}
		var problems []string
		got, err := readArchive(a, mtime, func(f string, args ...any) { problems = append(problems, f) })
		if err != nil || len(problems) > 0 || string(got["w/whale-ls"]) != "bin" || len(got) != 3 {
			t.Errorf("%s: %v %v %v", ext, got, err, problems)
		}
	}
	// The tar entries are owned by 0:0 without names.
	f, _ := os.Open(filepath.Join(dir, "a.tar.gz"))
	defer f.Close()
	gz, _ := gzip.NewReader(f)
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || !h.ModTime.Equal(mtime) {
			t.Errorf("%s: %d:%d %q %s", h.Name, h.Uid, h.Gid, h.Uname, h.ModTime)
		}
	}
}

func TestVSIXVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3":                               "1.2.3",
		"v0.0.0-20261206084101-83a2b8f339cf":   "0.0.0-20261206084101-83a2b8f339cf",
		"v1.2.4-0.20261206084101-83a2b8f339cf": "1.2.4-0.20261206084101-83a2b8f339cf",
	} {
		if got := (stamp{Version: in}).vsixVersion(); got != want {
			t.Errorf("vsixVersion(%s) = %s, want %s", in, got, want)
		}
	}
}

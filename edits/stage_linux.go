//go:build linux

package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// stageUnnamed writes data to an unnamed file (O_TMPFILE) in target's
// folder, or returns nil when the filesystem has none (the caller then
// uses a named temporary file).
func stageUnnamed(root *os.Root, target string, data []byte, mode fs.FileMode) *stagedFile {
	dirName := path.Dir(target)
	f, err := root.OpenFile(dirName, unix.O_TMPFILE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil
	}
	dir, err := root.Open(dirName)
	if err != nil {
		f.Close()
		return nil
	}
	_, werr := f.Write(data)
	err = errors.Join(werr, f.Chmod(mode), f.Sync())
	if err != nil {
		f.Close()
		dir.Close()
		return nil
	}
	return &stagedFile{unnamed: f, dir: dir}
}

// linkUnnamed gives the unnamed file target's staging name, inside the
// same folder it was created in, replacing a stale file of that name.
func linkUnnamed(s *stagedFile, target string) (string, error) {
	name := stagingName(target)
	link := func() error {
		return unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", s.unnamed.Fd()), int(s.dir.Fd()), path.Base(name), unix.AT_SYMLINK_FOLLOW)
	}
	err := link()
	if errors.Is(err, unix.EEXIST) {
		unix.Unlinkat(int(s.dir.Fd()), path.Base(name), 0)
		err = link()
	}
	if err != nil {
		return "", &os.LinkError{Op: "link", Old: "(unnamed)", New: name, Err: err}
	}
	return name, nil
}

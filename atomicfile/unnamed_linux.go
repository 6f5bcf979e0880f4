//go:build linux

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// stageUnnamed writes data to an unnamed file (O_TMPFILE) in the target's
// folder and syncs it. It reports false, leaving nothing behind, when that
// fails (the filesystem has no unnamed files, say); the caller then writes
// a named file.
func (f *File) stageUnnamed(data []byte, perm fs.FileMode) bool {
	dirName := path.Dir(f.target)
	w, err := f.root.OpenFile(dirName, unix.O_TMPFILE|os.O_WRONLY, 0o600)
	if err != nil {
		return false
	}
	dir, err := f.root.Open(dirName)
	if err != nil {
		w.Close()
		return false
	}
	_, werr := w.Write(data)
	if err := errors.Join(werr, w.Chmod(perm), w.Sync()); err != nil {
		w.Close()
		dir.Close()
		return false
	}
	f.unnamed, f.dir = w, dir
	return true
}

// linkUnnamed gives the unnamed file the temporary name, in the folder it
// was created in, replacing a stale file of that name.
func (f *File) linkUnnamed() error {
	base := path.Base(f.temp)
	link := func() error {
		return unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", f.unnamed.Fd()), int(f.dir.Fd()), base, unix.AT_SYMLINK_FOLLOW)
	}
	err := link()
	if errors.Is(err, unix.EEXIST) {
		unix.Unlinkat(int(f.dir.Fd()), base, 0)
		err = link()
	}
	if errors.Is(err, unix.EEXIST) { // a leftover that cannot be removed: name it beside that
		base = tempName(base)
		f.temp = path.Join(path.Dir(f.temp), base)
		err = link()
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: "(unnamed)", New: f.temp, Err: err}
	}
	return nil
}

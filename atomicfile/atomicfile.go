// Package atomicfile replaces a file's content as one step: the new bytes
// are written and synced under a temporary name in the target's folder, then
// renamed over the target, and the folder is synced. It is the one writer of
// whale-ls: edits commits through Stage and Commit, and small state files
// (attach's discovery files) through WriteFile.
//
// What it guarantees:
//   - A reader that opens the target sees either the whole old content or the
//     whole new content, never a mix or a truncated file: the rename is
//     atomic on the local filesystems of Linux, macOS and Windows (there it
//     replaces an existing file).
//   - The new content is on disk (fsync) before it gets the target's name,
//     so a crash leaves either the old or the new content; WriteFile also
//     syncs the folder afterwards on unix, so the new name survives a crash
//     once it returns nil.
//   - A failed write leaves the target as it was and removes its temporary
//     file.
//
// What it does not do:
//   - It is not a lock: two writers of one target do not wait for each other;
//     the last rename wins, and what each wrote is whole. Callers that need
//     read-modify-write serialise themselves (edits holds its Locks).
//   - A process killed between creating and renaming the temporary file can
//     leave it behind, a dot file beside the target; the target itself is
//     untouched. On Linux, where the filesystem has unnamed files
//     (O_TMPFILE), the content has no name until the commit, which narrows
//     that window to the two system calls that link and rename it.
//   - It replaces a symbolic link at the target with a regular file rather
//     than writing through it, and keeps neither the old file's owner, mode
//     nor extended attributes (the caller passes the mode); a folder at the
//     target makes the write fail.
//   - On Windows, perm only sets or clears the read-only attribute (as
//     os.Chmod does) and folders are not synced; network filesystems may not
//     make the rename atomic. A rename that another process's open handle on
//     the target refuses is retried for up to two seconds.
//   - A leftover at the temporary name that cannot be removed (on Windows, a
//     file another process still holds) is left where it is, and the
//     content is staged under a random name beside it.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"unicode/utf8"
)

// WriteFile replaces the file at name with data and mode perm, creating it
// when it does not exist: it writes and syncs a temporary file beside it
// (".<base>.tmp-<random>"), renames that over name and syncs the folder.
// Errors leave the file at name as it was, except an error from syncing the
// folder (on unix), which is returned after the rename: name then holds
// data, but a crash may still bring back the old content.
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(name)
	if base == "" {
		return fmt.Errorf("write %s: not a file name", name)
	}
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := Stage(root, base, tempName(base), data, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	if err := SyncDir(root, "."); err != nil {
		return fmt.Errorf("sync folder of %s: %w", name, err)
	}
	return nil
}

// tempName is a random dot-file name built on base, short enough for every
// filesystem whatever base's length.
func tempName(base string) string {
	for len(base) > 100 {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	var r [6]byte
	rand.Read(r[:])
	return "." + base + ".tmp-" + hex.EncodeToString(r[:])
}

// File is new content for a target inside an *os.Root, written and synced
// in the target's folder but not yet in place. Commit puts it in place;
// Abort throws it away. A File is used by one goroutine.
type File struct {
	root   *os.Root
	target string // the name (in root) the content is for
	temp   string // the name beside target it has until Commit
	named  bool   // whether the content has the name temp yet

	// unnamed is the unnamed file (Linux O_TMPFILE) holding the content,
	// open until Commit links it to temp; dir is the target's folder.
	unnamed *os.File
	dir     *os.File
}

// Stage writes data with mode perm to a new file in the folder of target
// (a slash-separated name inside root; the folder must exist), syncs it,
// and returns it ready for Commit. temp is a base name (no slash) that the
// content has beside target until Commit; the caller owns that name: a file
// already there is taken to be a stale leftover and replaced. On Linux the
// content stays unnamed (O_TMPFILE) until Commit where the filesystem
// allows; elsewhere, or when it does not, it is written under temp at once.
func Stage(root *os.Root, target, temp string, data []byte, perm fs.FileMode) (*File, error) {
	if temp == "" || path.Base(temp) != temp || temp == "." || temp == ".." {
		return nil, fmt.Errorf("atomicfile: temporary name %q is not a base name", temp)
	}
	f := &File{root: root, target: target, temp: path.Join(path.Dir(target), temp)}
	if f.stageUnnamed(data, perm) {
		return f, nil
	}
	if err := f.stageNamed(data, perm); err != nil {
		return nil, err
	}
	return f, nil
}

// stageNamed writes data to a file at f.temp, replacing a stale one, and
// syncs it; on failure nothing is left at f.temp.
func (f *File) stageNamed(data []byte, perm fs.FileMode) error {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	w, err := f.root.OpenFile(f.temp, flags, 0o600)
	if errors.Is(err, fs.ErrExist) {
		f.root.Remove(f.temp)
		w, err = f.root.OpenFile(f.temp, flags, 0o600)
	}
	if errors.Is(err, fs.ErrExist) {
		// The leftover cannot be removed (Windows keeps a file that
		// another process still has open): stage beside it instead.
		f.temp = path.Join(path.Dir(f.temp), tempName(path.Base(f.temp)))
		w, err = f.root.OpenFile(f.temp, flags, 0o600)
	}
	if err != nil {
		return err
	}
	_, werr := w.Write(data)
	err = errors.Join(werr, w.Chmod(perm), w.Sync(), w.Close())
	if err != nil {
		f.root.Remove(f.temp)
		return err
	}
	f.named = true
	return nil
}

// Commit renames the staged content over the target (giving unnamed content
// the temporary name first). It does not sync the folder: call SyncDir once
// the folder's renames are done. On failure the temporary file is removed
// and the target is untouched. A File commits once; Commit after Commit or
// Abort fails.
func (f *File) Commit() error {
	if f.unnamed != nil {
		err := f.linkUnnamed()
		f.closeUnnamed()
		if err != nil {
			return err
		}
		f.named = true
	}
	if !f.named {
		return errors.New("atomicfile: Commit after Commit or Abort")
	}
	f.named = false
	if err := rename(f.root, f.temp, f.target); err != nil {
		f.root.Remove(f.temp)
		return err
	}
	return nil
}

// Abort throws the staged content away. It is safe to call after Commit
// (it then does nothing) and more than once.
func (f *File) Abort() {
	f.closeUnnamed()
	if f.named {
		f.root.Remove(f.temp)
		f.named = false
	}
}

func (f *File) closeUnnamed() {
	if f.unnamed != nil {
		f.unnamed.Close()
		f.dir.Close()
		f.unnamed, f.dir = nil, nil
	}
}

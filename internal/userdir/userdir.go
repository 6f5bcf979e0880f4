// Package userdir is the one answer to where whale keeps its own files,
// per user and per system, and how they are kept private:
//
//   - State: what outlives a process (the journal of changes, todos, the
//     exec audit log): $XDG_STATE_HOME/whale-ls, else
//     ~/.local/state/whale-ls; on Windows %LocalAppData%\whale-ls\state.
//   - Runtime: sockets, discovery files and cross-process lock files:
//     $XDG_RUNTIME_DIR/whale-ls, else the state folder's run/ (never the
//     shared temporary folder, which every task may write); on Windows
//     %LocalAppData%\whale-ls\run.
//
// Private and OpenFile create or check a folder or file only this user may
// use: owned by the user, mode 0700/0600, not a symlink.
package userdir

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Private creates (or checks) a folder only the current user can enter:
// mode 0700, owned by the user, not a symlink. An existing folder with wider
// permissions is tightened to 0700; one owned by someone else is an error.
//
// On Windows there are no Unix permissions and no uid: the folder is only
// checked to be a folder and not a symlink, and what keeps other users out
// is the ACL of the folder it is created in — Runtime and State place it
// under %LocalAppData%, which Windows makes readable only by the user,
// SYSTEM and administrators.
func Private(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create private folder %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("private folder %s is not a folder (a symlink or a file)", dir)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("private folder %s belongs to uid %d, not to this user", dir, uid)
	}
	if fi.Mode().Perm() != 0o700 && runtime.GOOS != "windows" {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
	}
	return nil
}

// OpenFile opens name inside a private folder (created with
// Private) with mode 0600, creating it when flag has os.O_CREATE. It
// refuses symlinks and files owned by someone else, and tightens the mode of
// an existing file.
func OpenFile(dir, name string, flag int) (*os.File, error) {
	if err := Private(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	if noFollow == 0 {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("private file %s is a symlink; remove it", path)
		}
	}
	f, err := os.OpenFile(path, flag|noFollow, 0o600)
	if err != nil {
		if isSymlinkErr(err) {
			return nil, fmt.Errorf("private file %s is a symlink; remove it", path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		f.Close()
		return nil, fmt.Errorf("private file %s belongs to uid %d, not to this user", path, uid)
	}
	if fi.Mode().Perm() != 0o600 && runtime.GOOS != "windows" {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// State is whale's folder for what outlives a process. It is not created
// here: callers create what they need in it (Private for a private one).
func State() (string, error) {
	if local, err := os.UserCacheDir(); runtime.GOOS == "windows" && err == nil {
		return filepath.Join(local, "whale-ls", "state"), nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "whale-ls"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state folder: set XDG_STATE_HOME or HOME: %w", err)
	}
	return filepath.Join(home, ".local", "state", "whale-ls"), nil
}

// Runtime is the private folder for sockets, discovery files and lock
// files, created (or checked) with Private.
func Runtime() (string, error) {
	var dir string
	if local, err := os.UserCacheDir(); runtime.GOOS == "windows" && err == nil {
		dir = filepath.Join(local, "whale-ls", "run")
	} else if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "whale-ls")
	} else {
		state, err := State()
		if err != nil {
			return "", fmt.Errorf("no runtime folder: set XDG_RUNTIME_DIR, XDG_STATE_HOME or HOME: %w", err)
		}
		dir = filepath.Join(state, "run")
	}
	return dir, Private(dir)
}

package execboundary

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// PrivateDir creates (or checks) a folder only the current user can enter:
// mode 0700, owned by the user, not a symlink. An existing folder with wider
// permissions is tightened to 0700; one owned by someone else is an error.
//
// On Windows there are no Unix permissions and no uid: the folder is only
// checked to be a folder and not a symlink, and what keeps other users out
// is the ACL of the folder it is created in — RuntimeDir and StateDir place
// it under %LocalAppData%, which Windows makes readable only by the user,
// SYSTEM and administrators.
func PrivateDir(dir string) error {
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

// OpenPrivateFile opens name inside a private folder (created with
// PrivateDir) with mode 0600, creating it when flag has os.O_CREATE. It
// refuses symlinks and files owned by someone else, and tightens the mode of
// an existing file.
func OpenPrivateFile(dir, name string, flag int) (*os.File, error) {
	if err := PrivateDir(dir); err != nil {
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

// RuntimeDir is the private folder for sockets and temporary files:
// $XDG_RUNTIME_DIR/whale-ls, else whale-ls-UID in the temporary folder; on
// Windows %LocalAppData%\whale-ls\run. It is created with PrivateDir.
func RuntimeDir() (string, error) {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if local, err := os.UserCacheDir(); runtime.GOOS == "windows" && err == nil {
		dir = filepath.Join(local, "whale-ls", "run")
	} else if dir != "" && filepath.IsAbs(dir) {
		dir = filepath.Join(dir, "whale-ls")
	} else {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("whale-ls-%d", os.Geteuid()))
	}
	return dir, PrivateDir(dir)
}

// StateDir is where the audit log lives: $XDG_STATE_HOME/whale-ls, else
// ~/.local/state/whale-ls; on Windows %LocalAppData%\whale-ls\state.
func StateDir() (string, error) {
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

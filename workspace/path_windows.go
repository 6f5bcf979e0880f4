package workspace

import (
	"path/filepath"
	"strings"
)

// samePath reports whether two clean paths name the same place as Windows
// compares names: without regard to case (NTFS and FAT folders are case-
// insensitive unless a folder was made case-sensitive for WSL). Unicode
// case folding stands in for the file system's upcase table.
func samePath(a, b string) bool { return strings.EqualFold(a, b) }

// fromURIPath turns the path of a file URI ("/C:/x") into a Windows path
// ("C:/x").
func fromURIPath(p string) string {
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && ('a' <= p[1]|0x20 && p[1]|0x20 <= 'z') {
		return p[1:]
	}
	return p
}

// joinBase makes p, which is not absolute, absolute against base: a path
// rooted without a drive (`\x`) is on base's drive; a drive-relative path
// (`D:x`) is refused (ok false), since it names a per-drive current folder
// the server does not have.
func joinBase(base, p string) (string, bool) {
	if filepath.VolumeName(p) != "" {
		return "", false
	}
	if p[0] == '\\' || p[0] == '/' {
		return filepath.VolumeName(base) + p, true
	}
	return filepath.Join(base, p), true
}

package search

import (
	"bytes"
	"errors"
	"os"
)

var errTooLarge = errors.New("file too large")

// entryKind is the type of a directory entry as the directory listing
// reports it; symlinks are never resolved.
type entryKind uint8

const (
	kindOther entryKind = iota
	kindFile
	kindDir
	kindSymlink
)

// dirent is one entry of a directory listing.
type dirent struct {
	name string
	kind entryKind
}

// dirHandle is an open directory inside a workspace root. Every method takes
// a single path component and never follows a symlink, so nothing reached
// through a dirHandle can be outside the root it was opened from.
type dirHandle interface {
	// list returns the directory's entries in no particular order, without
	// "." and "..".
	list() ([]dirent, error)
	// openDir opens the subdirectory name; it fails when name is a symlink.
	openDir(name string) (dirHandle, error)
	// readFile reads the regular file name into buf (growing it as needed)
	// and returns the bytes read. When skipBinary is set and the first
	// binaryProbe bytes hold a NUL, it stops early and returns errBinary; a
	// file of limit bytes or more gives errTooLarge. size is the file's
	// size when the caller knows it (the index does), else -1: a read that
	// comes back short at that size is taken as the end of the file, which
	// saves the read that would return 0.
	readFile(name string, buf []byte, skipBinary bool, limit int, size int64) ([]byte, error)
	// stat returns the size and modification time (Unix nanoseconds) of
	// the entry name, without following a symlink; ok is false unless it
	// is a regular file.
	stat(name string) (size, mtime int64, ok bool)
	close()
}

// MaxFileSize is the size from which Grep skips a file instead of reading
// it whole; the result lists such files.
const MaxFileSize = 128 << 20

// binaryProbe is how much of a file is looked at for a NUL byte.
const binaryProbe = 8 << 10

// isBinary reports whether a file starting with data is binary: a NUL in
// its first binaryProbe bytes. Grep skips such files.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binaryProbe)], 0) >= 0
}

// openStartDir opens the directory rel of root as a dirHandle. rel itself is
// resolved by os.Root (so it may go through a symlink that stays inside the
// root); everything below it is reached one component at a time.
func openStartDir(root *os.Root, rel string) (dirHandle, error) {
	return openRootDir(root, rel)
}

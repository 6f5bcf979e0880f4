//go:build !linux

package edits

import (
	"errors"
	"io/fs"
	"os"
)

// stageUnnamed returns nil: only Linux has unnamed files (O_TMPFILE), so
// elsewhere the new content is staged in a named file, which a process
// killed before its rename leaves behind until the next commit of the same
// target.
func stageUnnamed(root *os.Root, target string, data []byte, mode fs.FileMode) *stagedFile {
	return nil
}

func linkUnnamed(s *stagedFile, target string) (string, error) {
	return "", errors.ErrUnsupported
}

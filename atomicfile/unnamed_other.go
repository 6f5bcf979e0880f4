//go:build !linux

package atomicfile

import (
	"errors"
	"io/fs"
)

// stageUnnamed reports false: only Linux has unnamed files (O_TMPFILE), so
// elsewhere the content is staged in a named file, which a process killed
// before its rename leaves behind.
func (f *File) stageUnnamed(data []byte, perm fs.FileMode) bool { return false }

func (f *File) linkUnnamed() error { return errors.ErrUnsupported }

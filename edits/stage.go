package edits

import (
	"io/fs"
	"os"
)

// stagedFile is new content written and synced beside its target, not yet
// in place: an unnamed file where the platform has them (Linux O_TMPFILE),
// named only for the two system calls that link and rename it, else a named
// staging file. A process killed while the content has a name leaves it
// under stagingName, and the next commit of the same target removes it.
type stagedFile struct {
	unnamed *os.File // the unnamed file, open until it is placed
	dir     *os.File // its folder, for linking it in
	name    string   // the named temporary file, when there is one
}

// stage writes data beside target with mode and syncs it.
func stage(root *os.Root, target string, data []byte, mode fs.FileMode) (*stagedFile, error) {
	if s := stageUnnamed(root, target, data, mode); s != nil {
		return s, nil
	}
	name, err := writeNamedTemp(root, target, data, mode)
	if err != nil {
		return nil, err
	}
	return &stagedFile{name: name}, nil
}

// replace renames the staged content over target (giving an unnamed file a
// name beside it first).
func (s *stagedFile) replace(root *os.Root, target string) error {
	if s.unnamed != nil {
		name, err := linkUnnamed(s, target)
		s.close()
		if err != nil {
			return err
		}
		s.name = name
	}
	if err := root.Rename(s.name, target); err != nil {
		root.Remove(s.name)
		s.name = ""
		return err
	}
	s.name = ""
	return nil
}

// discard throws the staged content away.
func (s *stagedFile) discard(root *os.Root) {
	s.close()
	if s.name != "" {
		root.Remove(s.name)
		s.name = ""
	}
}

func (s *stagedFile) close() {
	if s.unnamed != nil {
		s.unnamed.Close()
		s.dir.Close()
		s.unnamed, s.dir = nil, nil
	}
}

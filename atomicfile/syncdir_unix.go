//go:build unix

package atomicfile

import (
	"errors"
	"os"
)

// SyncDir syncs the folder dir (a slash-separated name inside root, "."
// for root itself), which makes the renames and creations done in it
// survive a crash.
func SyncDir(root *os.Root, dir string) error {
	f, err := root.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

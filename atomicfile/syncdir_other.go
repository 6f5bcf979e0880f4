//go:build !unix

package atomicfile

import "os"

// SyncDir does nothing where folders cannot be synced (Windows: a folder
// handle cannot be flushed, and NTFS journals the rename itself).
func SyncDir(root *os.Root, dir string) error { return nil }

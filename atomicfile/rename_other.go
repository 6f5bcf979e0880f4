//go:build !windows

package atomicfile

import "os"

// rename renames from to to in root.
func rename(root *os.Root, from, to string) error { return root.Rename(from, to) }

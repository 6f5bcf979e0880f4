//go:build !linux

package filelock

import "os"

// holders is unknown here: only Linux lists file locks (/proc/locks).
func holders(*os.File) []string { return nil }

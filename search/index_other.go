//go:build !linux

package search

import (
	"fmt"
	"runtime"
)

// newWatcher fails: the file index watches with inotify, which only Linux
// has; elsewhere the index is off and searches walk the folder.
func newWatcher(int) (watcher, error) {
	return nil, fmt.Errorf("there is no file index on %s yet (it needs Linux inotify)", runtime.GOOS)
}

func watchLimitText() string { return "" }

//go:build !linux

package sandbox

// watchCaches: only Linux's caches are watched, as only Linux confines a
// task to them.
func watchCaches(*markState) func() { return nil }

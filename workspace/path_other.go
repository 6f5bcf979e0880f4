//go:build !windows

package workspace

import "path/filepath"

// samePath reports whether two clean paths are the same string: paths are
// compared byte for byte outside Windows (a case-insensitive macOS volume
// then refuses a differently cased path, which is safe).
func samePath(a, b string) bool { return a == b }

// fromURIPath is the path of a file URI as it is.
func fromURIPath(p string) string { return p }

// joinBase joins base and the relative path p.
func joinBase(base, p string) (string, bool) { return filepath.Join(base, p), true }

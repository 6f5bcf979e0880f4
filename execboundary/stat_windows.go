package execboundary

import "os"

// statIdentity reports no identity on Windows: os.FileInfo carries no file
// index there, so rules match by name, path and content hash only.
func statIdentity(fi os.FileInfo) (dev, ino uint64, changeNs int64, ok bool) {
	return 0, 0, 0, false
}

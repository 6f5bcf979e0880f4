package execboundary

import "os"

// statIdentity reports no identity on Windows: os.FileInfo carries no file
// index there, so rules match by name, path and content hash only.
func statIdentity(fi os.FileInfo) (dev, ino uint64, changeNs int64, ok bool) {
	return 0, 0, 0, false
}

// fileOwner is unknown on Windows (ownership is an ACL, not a uid); private
// folders rely on the user profile's ACL instead, see PrivateDir.
func fileOwner(fi os.FileInfo) (uid int, ok bool) { return 0, false }

// noFollow is 0: Windows has no O_NOFOLLOW; OpenPrivateFile checks with
// Lstat before opening instead.
const noFollow = 0

func isSymlinkErr(err error) bool { return false }

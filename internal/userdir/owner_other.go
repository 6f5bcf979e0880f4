//go:build !unix

package userdir

import "os"

// fileOwner is unknown on Windows (ownership is an ACL, not a uid); private
// folders rely on the user profile's ACL instead, see Private.
func fileOwner(os.FileInfo) (uid int, ok bool) { return 0, false }

// noFollow is 0: Windows has no O_NOFOLLOW; OpenFile checks with Lstat
// before opening instead.
const noFollow = 0

func isSymlinkErr(error) bool { return false }

package attach

import "os"

// ownerUID is unknown on Windows (ownership is an ACL); the folder sits in
// the user's profile, whose ACL keeps other users out.
func ownerUID(os.FileInfo) (int, bool) { return 0, false }

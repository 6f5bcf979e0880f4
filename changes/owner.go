package changes

import "os"

// selfStart is this process's start token, recorded with its pending
// entries.
var selfStart, _ = processStart(os.Getpid())

// ownerGone reports whether the process that began a pending entry is
// known to be gone, so that its entry can be settled at once instead of
// after PendingAge. Unknown (no pid recorded, a system that cannot tell)
// is not gone; this process is never gone.
func ownerGone(pid int, start uint64) bool {
	if pid <= 0 || pid == os.Getpid() {
		return false
	}
	return processGone(pid, start)
}

package attach

import "golang.org/x/sys/unix"

// socketPeerCred reads the peer's uid with LOCAL_PEERCRED and its pid with
// LOCAL_PEERPID.
func socketPeerCred(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, 0, err
	}
	pid, _ = unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	return int(cred.Uid), pid, nil
}

// descendantOf is unknown on macOS (no /proc): a task's processes cannot
// be told apart there, which README's sandbox limits say.
func descendantOf(pid, ancestor int) bool { return false }

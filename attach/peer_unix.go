//go:build linux || darwin

package attach

import (
	"errors"
	"net"
)

// peerCred returns the user id and process id of the process at the other
// end of c (pid 0 where the system does not say).
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	uid = -1
	var cerr error
	err = raw.Control(func(fd uintptr) { uid, pid, cerr = socketPeerCred(int(fd)) })
	if err != nil {
		return -1, 0, err
	}
	return uid, pid, cerr
}

// errNoPeerCred is never returned here: Linux and macOS say who the peer is.
var errNoPeerCred = errors.New("peer credentials are not available on this system")

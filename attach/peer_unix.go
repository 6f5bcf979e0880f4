//go:build linux || darwin

package attach

import "net"

// peerUID returns the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var cerr error
	err = raw.Control(func(fd uintptr) { uid, cerr = socketPeerUID(int(fd)) })
	if err != nil {
		return -1, err
	}
	return uid, cerr
}

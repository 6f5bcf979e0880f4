//go:build !linux && !darwin

package attach

import (
	"errors"
	"net"
)

// errNoPeerCred: this system does not say who is at the other end of a
// socket (the listener then refuses every peer; a client takes the
// discovery file's word, in a folder only its user can write).
var errNoPeerCred = errors.New("peer credentials are not available on this system")

// peerCred is unavailable here: every peer is refused.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	return -1, 0, errNoPeerCred
}

func descendantOf(pid, ancestor int) bool { return false }

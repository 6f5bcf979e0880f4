//go:build !linux && !darwin

package attach

import (
	"errors"
	"net"
)

// peerUID is unavailable here: every peer is refused.
func peerUID(c *net.UnixConn) (int, error) {
	return -1, errors.New("peer credentials are not available on this system")
}

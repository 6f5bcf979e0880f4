//go:build !linux

package terminal

import "testing"

// needMode probes nothing here: the PTY tests of other systems (ConPTY
// under Windows, ptys on macOS) have their own.
func needMode(*testing.T, Mode) {}

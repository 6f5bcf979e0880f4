package terminal

import (
	"testing"

	"github.com/whale-ls/whale-ls/internal/probe"
)

// needMode skips a PTY test where no pseudo-terminal can be opened.
func needMode(t *testing.T, m Mode) {
	t.Helper()
	if m == ModePTY {
		probe.Need(t, probe.PTY())
	}
}

//go:build unix && !linux && !darwin

package terminal

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// Supervise execs the shell directly where the kernel has neither a
// parent-death signal nor child subreapers; the task then dies with the
// server only through Close, and processes that outlive the shell are out of
// reach once re-parented. A "--status-fd N" argument is accepted and N is
// closed: the Table then learns the shell's exit from the process's own.
func Supervise(args []string) int {
	for len(args) > 0 && args[0] != "--" {
		if args[0] == "--status-fd" && len(args) > 1 {
			if n, err := strconv.Atoi(args[1]); err == nil && n > 2 {
				_ = syscall.Close(n)
			}
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "task supervisor: expected [--status-fd N] -- SHELL ARGS…")
		return 2
	}
	err := syscall.Exec(args[1], args[1:], os.Environ())
	fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
	return 127
}

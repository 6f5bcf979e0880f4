//go:build !linux

package terminal

import (
	"fmt"
	"os"
	"syscall"
)

// Supervise execs the shell directly where the kernel has no parent-death
// signal; the task then dies with the server only through Close.
func Supervise(args []string) int {
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "task supervisor: expected -- SHELL ARGS…")
		return 2
	}
	err := syscall.Exec(args[1], args[1:], os.Environ())
	fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
	return 127
}

package terminal

import (
	"fmt"
	"os"
)

// Supervise is not used on Windows: a task's tree lives in a Job object
// that dies with the task and with the server (see afterStart), so the
// Table never starts a supervisor there.
func Supervise(args []string) int {
	fmt.Fprintln(os.Stderr, "task supervisor: not used on Windows (tasks run in Job objects)")
	return 2
}

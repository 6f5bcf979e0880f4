//go:build unix

package terminal

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInheritedOnExec marks every descriptor this process inherited
// beyond the standard three close-on-exec, so that no task it starts can
// use one: tasks get stdin, stdout, stderr and what whale hands them
// itself (ExtraFiles), nothing the process that started whale left open.
// A process that starts tasks calls it once, first thing; the descriptors
// stay usable in the process itself.
func CloseInheritedOnExec() {
	if closeRangeCloexec() == nil {
		return
	}
	// No close_range(2) (Linux before 5.11, other systems): one by one, as
	// the system lists them.
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		f, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		own := int(f.Fd())
		for _, name := range names {
			if fd, err := strconv.Atoi(name); err == nil && fd > 2 && fd != own {
				unix.CloseOnExec(fd)
			}
		}
		f.Close()
		return
	}
}

package filelock

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// holders lists the processes that hold a lock on f's file, from
// /proc/locks ("1: FLOCK ADVISORY WRITE 1234 fe:00:9994298 0 EOF"), each
// with its command name when /proc tells it.
func holders(f *os.File) []string {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return nil
	}
	defer locks.Close()
	self := fmt.Sprint(os.Getpid())
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	var out []string
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// id: FLOCK ADVISORY WRITE pid maj:min:ino start end; blocked
		// waiters have "->" after the id.
		if len(fields) < 6 || fields[1] == "->" || fields[5] != id || fields[4] == self {
			continue
		}
		desc := "pid " + fields[4]
		if comm, err := os.ReadFile("/proc/" + fields[4] + "/comm"); err == nil {
			desc += " (" + strings.TrimSpace(string(comm)) + ")"
		}
		out = append(out, desc)
	}
	return out
}

package attach

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// socketPeerCred reads the peer's uid and pid with SO_PEERCRED.
func socketPeerCred(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, 0, err
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// descendantOf reports whether process pid is ancestor itself or runs
// below it, following parent ids in /proc (a task's processes stay below
// the server: it is their subreaper).
func descendantOf(pid, ancestor int) bool {
	for range 4096 { // a bound, in case /proc changes under us
		if pid == ancestor {
			return true
		}
		if pid <= 1 {
			return false
		}
		ppid, err := parentPID(pid)
		if err != nil {
			return false
		}
		pid = ppid
	}
	return false
}

// parentPID reads the fourth field of /proc/PID/stat, after the command
// name in parentheses (which may itself hold spaces and parentheses).
func parentPID(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return strconv.Atoi(fields[1])
}

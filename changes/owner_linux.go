package changes

import (
	"os"
	"strconv"
	"strings"
)

// processStart reads the process's start time (field 22 of
// /proc/PID/stat, in clock ticks since boot), which tells it from a later
// process that got the same pid.
func processStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	// After "pid (comm)": state is field 3, so starttime (22) is the 20th.
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(fields[19], 10, 64)
	return v, err == nil
}

func processGone(pid int, start uint64) bool {
	now, ok := processStart(pid)
	return !ok || (start != 0 && now != start)
}

//go:build unix

package embedded

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processExists: signal 0 checks the pid without signalling it (EPERM: a process of another
// user has it). A zombie, killed but not yet reaped by its parent, has ended.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	state, _ := procStat(pid)
	return state != "Z" && state != "X"
}

// pidNamespace names this process's pid namespace ("pid:[4026531836]"), "" where there is
// no /proc.
func pidNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}

// processStart is the process's start time in clock ticks since boot, or "" where there is no
// /proc.
func processStart(pid int) string {
	_, start := procStat(pid)
	return start
}

// procStat reads a process's state and start time (fields 3 and 22 of /proc/PID/stat); both
// are "" where there is no /proc.
func procStat(pid int) (state, start string) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return "", ""
	}
	fields := strings.Fields(s[i+1:]) // fields[0] is field 3
	if len(fields) < 20 {
		return "", ""
	}
	return fields[0], fields[19]
}

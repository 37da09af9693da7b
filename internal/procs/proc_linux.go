package procs

import "syscall"

// sysProcAttr: the server dies with natsperf (even after a SIGKILL) and is in a process group
// of its own, so a Ctrl-C in the terminal reaches natsperf only, which then stops it in order.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

//go:build unix && !linux

package procs

import "syscall"

// sysProcAttr: no parent-death signal outside Linux; Sweep ends what a killed natsperf left.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

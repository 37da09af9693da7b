//go:build unix

package procs

import "syscall"

func sigKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
func sigTerm(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
func sigStop(pid int) error { return syscall.Kill(pid, syscall.SIGSTOP) }
func sigCont(pid int) error { return syscall.Kill(pid, syscall.SIGCONT) }

//go:build !unix

package procs

import (
	"errors"
	"os"
	"syscall"
)

var errNoSignals = errors.New("needs a unix system")

func sysProcAttr() *syscall.SysProcAttr { return nil }

func sigKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
func sigTerm(pid int) error { return sigKill(pid) }
func sigStop(int) error     { return errNoSignals }
func sigCont(int) error     { return nil }

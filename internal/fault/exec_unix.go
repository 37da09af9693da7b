//go:build unix

package fault

import (
	"os/exec"
	"syscall"
)

// setGroup runs the command in its own process group and kills the whole group on timeout, so
// nothing it started outlives the run.
func setGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}

// killGroup stops whatever is left of the command's process group.
func killGroup(c *exec.Cmd) {
	if c.Process != nil {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}

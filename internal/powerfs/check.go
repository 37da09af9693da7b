package powerfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// DeviceEnv overrides the FUSE device Check looks at (tests simulate a machine without one).
const DeviceEnv = "NATSPERF_FUSE_DEVICE"

// ErrNoFUSE is wrapped by Check's errors.
var ErrNoFUSE = errors.New("power failures need FUSE")

// Check reports what is missing to mount a powerfs: nil when the FUSE device opens and this
// process is root or has fusermount. Its error is one line a user can act on.
func Check() error {
	dev := os.Getenv(DeviceEnv)
	if dev == "" {
		dev = "/dev/fuse"
	}
	return CheckDevice(dev, os.Geteuid() == 0)
}

// CheckDevice is Check for a given device path and root-ness.
func CheckDevice(dev string, root bool) error {
	f, err := os.OpenFile(dev, os.O_RDWR, 0)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("%w: %s does not exist (load the fuse module, or give a container --device /dev/fuse)", ErrNoFUSE, dev)
		}
		return fmt.Errorf("%w: cannot open %s: %v (run as root, or give a container --device /dev/fuse --cap-add SYS_ADMIN)", ErrNoFUSE, dev, err)
	}
	f.Close()
	if root {
		return nil
	}
	for _, bin := range []string{"fusermount3", "fusermount"} {
		if _, err := exec.LookPath(bin); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: not root and no fusermount in PATH (run as root, or install fuse3)", ErrNoFUSE)
}

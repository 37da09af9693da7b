package cmdline

import "github.com/natsperf/natsperf/internal/stamp"

// checkVerifySize refuses --verify on messages too small to carry a stamp.
func checkVerifySize(ff *faultFlags, size int64) error {
	if ff.Verify && size < stamp.Size {
		return usagef("--verify needs --size of at least %d B: smaller messages carry no stamp", stamp.Size)
	}
	return nil
}

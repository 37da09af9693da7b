package procs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/natsperf/natsperf/internal/embedded"
)

// pidsFile in a store root lists its running server processes, one pid a line.
const pidsFile = ".natsperf-pids"

// Sweep ends the server processes a natsperf that is gone left running (where no
// parent-death signal took them) and removes the temporary stores it left, under tmp
// (os.TempDir() when empty). A process is only signalled when its command line names the
// dead owner's store root, so a reused pid is left alone. It returns the roots it cleaned.
func Sweep(tmp string) []string {
	if tmp == "" {
		tmp = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, embedded.StorePrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, pidsFile))
		if err != nil || !embedded.StaleStore(dir) {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 && cmdlineNames(pid, dir) {
				_ = sigKill(pid)
			}
		}
	}
	return embedded.SweepStaleStores(tmp)
}

// cmdlineNames reports whether process pid's command line mentions dir (its config file
// lies there).
func cmdlineNames(pid int, dir string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && strings.Contains(string(b), dir+string(filepath.Separator))
}

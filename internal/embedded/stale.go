package embedded

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/natsperf/natsperf/internal/powerfs"
)

// A temporary store is removed by Shutdown, but a natsperf killed with SIGKILL (or a crash)
// leaves it in the temp dir: megabytes per run. Each temporary store therefore carries an
// owner file naming the process that made it, and the next start removes the stores whose
// owner is gone. Only directories named storePrefix* that hold a well-formed owner file are
// ever removed: anything else in the temp dir, a store given with --store-dir, and the store
// of a natsperf still running are left alone.
const (
	storePrefix = "natsperf-"
	ownerFile   = ".natsperf-owner"
)

// owner identifies a process: its pid and, where the system says, its start time, so that a
// pid reused by another process does not keep a dead run's store, and its pid namespace: a
// container sharing the temp dir numbers its processes apart, so its stores are left alone.
type owner struct {
	pid       int
	start, ns string
}

func (o owner) String() string {
	return fmt.Sprintf("pid %d\nstart %s\nns %s\n", o.pid, o.start, o.ns)
}

// self is this process as an owner.
func self() owner {
	return owner{pid: os.Getpid(), start: processStart(os.Getpid()), ns: pidNamespace()}
}

func parseOwner(b []byte) (owner, bool) {
	var o owner
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return o, false
			}
			o.pid = n
		case "start":
			o.start = v
		case "ns":
			o.ns = v
		}
	}
	return o, o.pid > 0
}

// gone reports whether the process o names has ended: no process has its pid, or the one that
// has it started at another time. An owner in another pid namespace is never known to be gone.
func (o owner) gone() bool {
	if o.ns != pidNamespace() {
		return false
	}
	if !processExists(o.pid) {
		return true
	}
	return o.start != "" && processStart(o.pid) != o.start
}

// markStore writes the owner file into a temporary store root dir.
func markStore(dir string) error {
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(self().String()), 0o600)
}

// SweepStaleStores removes the temporary stores under tmp (os.TempDir() when empty) whose
// owner process has ended, and returns the directories it removed.
func SweepStaleStores(tmp string) []string {
	if tmp == "" {
		tmp = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, storePrefix+"*"))
	var removed []string
	for _, dir := range dirs {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not ours, or still being made
		}
		o, ok := parseOwner(b)
		if !ok || o.pid == os.Getpid() || !o.gone() {
			continue
		}
		powerfs.UnmountUnder(dir) // a store on powerfs mounts: dead ones block the removal
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

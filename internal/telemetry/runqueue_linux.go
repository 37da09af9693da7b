package telemetry

import (
	"os"
	"strconv"
	"strings"
)

// runQueueWaits are, per thread of this process, the nanoseconds it has spent runnable but
// waiting for a CPU (/proc/self/task/*/schedstat, second field): a thread the host kept off
// its CPU stalls whatever goroutine it was running, which a timer on another thread does not
// see.
func runQueueWaits() map[string]int64 {
	dir := "/proc/self/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make(map[string]int64, len(ents))
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			out[e.Name()] = n
		}
	}
	return out
}

package scenario

import (
	"fmt"
	"strings"
)

// checkCapacity checks a cell that capacity: searches instead of running it once, when the
// file loads rather than when the cell runs: natsperf capacity probes one fixed-rate
// workload at a time, so the cell holds one workload of one instance, whose command is one
// that capacity can probe (opts.CheckCapacity).
func checkCapacity(f *File, opts Options, cell string, at func(field, format string, args ...any)) {
	where := ""
	if cell != "default" {
		where = "cell " + cell + ": "
	}
	var names []string
	n := 0
	for _, w := range f.Workloads {
		n += max(w.Instances, 1)
		names = append(names, fmt.Sprintf("%s x%d", w.Name, max(w.Instances, 1)))
	}
	if n != 1 {
		at("capacity", "%sa capacity search probes one workload of one instance, this cell has %d (%s)", where, n, strings.Join(names, ", "))
		return
	}
	args, err := f.Workloads[0].Args(1)
	if err != nil || len(args) == 0 || opts.CheckCapacity == nil {
		return // reported with the workload's other mistakes
	}
	if err := opts.CheckCapacity(args); err != nil {
		at("workloads[0].command", "%sworkload %s: %v", where, f.Workloads[0].Name, err) // not args: they may hold a secret
	}
}

package fault

import (
	"time"

	"github.com/natsperf/natsperf/result"
)

// Phases cuts the run (0 to end) at the faults that took effect: before the first, then from
// each fault to the next; a pause also ends its own phase when it is over. Each phase's
// latencies are reported apart, so a fault's effect shows next to the calm before it. A
// --fault-exec command that failed still cuts ("after SPEC (command failed)"): natsperf
// cannot tell whether it did its work before failing (a kill -9 that also hit its own shell).
func Phases(events []result.FaultEvent, end time.Duration) []result.Window {
	type cut struct {
		at    time.Duration
		label string
	}
	var cuts []cut
	for _, ev := range events {
		if ev.Skipped || (ev.Error != "" && ev.Kind != Exec) || ev.Started >= end {
			continue
		}
		label := "after " + ev.Spec
		if ev.Error != "" {
			label += " (command failed)"
		}
		cuts = append(cuts, cut{ev.Started, label})
		if ev.Kind == Pause {
			if a, err := Parse(ev.Spec); err == nil {
				cuts[len(cuts)-1].label = "during " + ev.Spec
				if over := ev.Started + a.For; over < end {
					cuts = append(cuts, cut{over, "after " + ev.Spec})
				}
			}
		}
	}
	if len(cuts) == 0 {
		return nil
	}
	// Pauses may end after a later fault began: keep the cuts in time order.
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j].at < cuts[j-1].at; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	out := []result.Window{{Label: "before faults", From: 0, To: cuts[0].at}}
	for i, c := range cuts {
		to := end
		if i+1 < len(cuts) {
			to = cuts[i+1].at
		}
		out = append(out, result.Window{Label: c.label, From: c.at, To: to})
	}
	return out
}

package report

import (
	"github.com/natsperf/natsperf/internal/spike"
	"github.com/natsperf/natsperf/result"
)

// maxMarks bounds the events drawn on a time axis (a flood of reconnects would hide the
// chart); the Result keeps them all.
const maxMarks = 40

// telemetrySeries are each server's CPU and memory over the run.
func telemetrySeries(t *result.Telemetry) (cpu, mem []series) {
	if t == nil {
		return nil, nil
	}
	for _, s := range t.Servers {
		c, m := series{name: s.Name}, series{name: s.Name}
		for _, smp := range s.Samples {
			x := smp.Offset.Seconds()
			c.pts = append(c.pts, Point{x, smp.CPU})
			m.pts = append(m.pts, Point{x, float64(smp.Mem)})
		}
		cpu, mem = append(cpu, c), append(mem, m)
	}
	return cpu, mem
}

// eventMarks are the run's events, other than its faults (drawn as bands), as markers.
func eventMarks(events []result.Event) []band {
	var out []band
	for _, e := range events {
		if e.Kind == "fault" {
			continue
		}
		if len(out) == maxMarks {
			break
		}
		at := e.At.Seconds()
		out = append(out, band{from: at, to: at, label: spike.Describe(e), mark: true})
	}
	return out
}

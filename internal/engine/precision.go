package engine

import (
	"time"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/spec"
)

// pacedGroup is a fixed-rate sender group this process runs, with each sender's peak rate.
type pacedGroup struct {
	g    *harness.Group
	each float64 // msgs/s per sender at the schedule's fastest
}

// pacedGroupOf is g (this process's part of a group with a fixed rate under p) with each
// sender's peak rate: the rate across the whole group's clients, at its fastest step or
// ramp's end, shared by them.
func pacedGroupOf(g *harness.Group, p spec.Pacing) pacedGroup {
	peak := max(p.Rate, p.RateTo)
	for _, r := range p.Steps {
		peak = max(peak, r)
	}
	return pacedGroup{g: g, each: peak / float64(max(g.Total, g.Clients, 1))}
}

// resolvePrecision is the one place a run's pacing precision is decided: the Spec's
// pace_precision when set, else natsperf's choice from the rates of the senders this process
// paces (loop.ChoosePrecision: at the run's fastest, for a rate that changes). It records the
// precision, and whether it was chosen, in each paced group (the Result's pace_precision_ns
// and pace_precision_chosen), and returns it for harness.Runner.PacePrecision: it reaches the
// senders as a value (each client's Env.PacePrecision, its loop.Waiter), so concurrent runs in
// one process each pace at their own.
func resolvePrecision(s *spec.Spec, paced []pacedGroup) time.Duration {
	d, chosen := s.PacePrecision.D(), false
	if d <= 0 {
		var rates []float64
		for _, p := range paced {
			for range p.g.Clients {
				rates = append(rates, p.each)
			}
		}
		d, chosen = loop.ChoosePrecision(rates), true
	}
	for _, p := range paced {
		p.g.PacePrecision, p.g.PacePrecisionChosen = d, chosen
	}
	return d
}

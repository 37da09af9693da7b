package engine

import (
	"time"

	"github.com/natsperf/natsperf/internal/failover"
	"github.com/natsperf/natsperf/internal/slo"
	"github.com/natsperf/natsperf/result"

	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/spec"
)

// shapeOf is a workload's load shape as the senders' pacer takes it.
func shapeOf(p spec.Pacing) pace.Shape {
	return pace.Shape{
		To: p.RateTo, Ramp: p.Ramp.D(), Steps: p.Steps, StepDuration: p.StepDuration.D(),
		Poisson: p.Arrivals == "poisson", Seed: p.Seed,
	}
}

// offeredRate is the mean rate a workload's schedule offers over its duration (its rate when
// constant, or when it has no duration).
func offeredRate(p spec.Pacing) float64 {
	sh := shapeOf(p)
	if d := p.Duration.D(); d > 0 && sh.Varies() {
		return sh.Slots(p.Rate, d) / d.Seconds()
	}
	return p.Rate
}

// loadSteps are the spans a shaped run reports on: each step of its first stepped workload, or
// each series interval of its first ramp (nil without either), with what the schedule offered.
func loadSteps(s *spec.Spec, interval time.Duration) []result.LoadStep {
	for _, w := range s.Workloads {
		p, sh := w.Pacing, shapeOf(w.Pacing)
		if !sh.Varies() {
			continue
		}
		end := p.Duration.D()
		width := interval
		if sh.Stepped() {
			width = sh.StepDuration
			if end == 0 {
				end = width * time.Duration(len(sh.Steps))
			}
		} else if end == 0 {
			end = sh.Ramp
		}
		var out []result.LoadStep
		for at := time.Duration(0); at < end; at += width {
			d := min(width, end-at)
			offered := (sh.Slots(p.Rate, at+d) - sh.Slots(p.Rate, at)) / d.Seconds()
			out = append(out, result.LoadStep{Offset: at, Duration: d, Offered: offered})
		}
		return out
	}
	return nil
}

// Conclude adds what a run's Spec asks of its whole Result: the load steps of a shaped run,
// the verdicts of its thresholds and the story of its failovers. The engine calls it on its
// Result, a coordinator on the Result merged from its agents (whose parts each judged only
// themselves).
func Conclude(s *spec.Spec, res *result.Result) {
	s = s.Shaped()
	res.LoadSteps = loadSteps(s, SeriesInterval(s))
	result.FillSteps(res.LoadSteps, res.Groups)
	res.SLO = nil
	if len(s.SLO) > 0 {
		res.SLO = slo.Judge(res, s.SLO)
	}
	res.Failovers = failover.Tell(res)
}

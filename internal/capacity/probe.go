package capacity

import (
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/slo"
)

// Figures reads a probe's figures from its run's Result (judged on its thresholds by the
// engine). openLoop says the senders never wait for the server (core publishers): one that
// fell short of its rate could only have been held back by natsperf itself.
func Figures(res *result.Result, offered float64, openLoop bool) Probe {
	p := Probe{P50: -1, P99: -1, P999: -1, Drained: true}
	for _, q := range []struct {
		at  float64
		out *int64
	}{{50, &p.P50}, {99, &p.P99}, {99.9, &p.P999}} {
		if v, ok, _ := slo.Measure(res, slo.Threshold{Metric: "p", P: q.at}); ok {
			*q.out = int64(v)
		}
	}
	loss, _, _ := slo.Measure(res, slo.Threshold{Metric: "loss"})
	p.Loss = int64(loss)
	for _, g := range res.Groups {
		if g.TargetRate <= 0 {
			continue
		}
		p.Achieved += g.Aggregate.MsgsPerSec
		if l := g.Aggregate.SendLateness; l != nil {
			for _, row := range l.Percentiles {
				if row.P == 99 {
					p.LatenessP99 = max(p.LatenessP99, row.Ns)
				}
			}
		}
	}
	if res.CPU != nil {
		p.CPUShare = res.CPU.CoreShare
	}
	p.Pass = res.Stop.Reason == result.StopCompleted
	if !p.Pass {
		p.Failed = append(p.Failed, "run "+res.Stop.Reason)
		if res.Stop.Error != "" {
			p.Note = res.Stop.Error
		}
	}
	for _, v := range res.SLO {
		if !v.Pass {
			p.Pass = false
			p.Failed = append(p.Failed, v.SLO)
		}
	}
	short := offered > 0 && p.Achieved < 0.98*offered
	saturated := res.CPU != nil && res.CPU.CoreShare >= 0.9
	p.GeneratorBound = !p.Pass && short && (saturated || openLoop)
	return p
}

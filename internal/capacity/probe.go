package capacity

import (
	"fmt"
	"strings"

	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/slo"
)

// Figures reads a probe's figures from its run's Result (judged on its thresholds by the
// engine). openLoop says the senders never wait for the server (core publishers): one that
// fell short of its rate could only have been held back by natsperf itself.
func Figures(res *result.Result, offered float64, openLoop bool) Probe {
	p := Probe{P50: -1, P99: -1, P999: -1, LatenessP99: -1, CPUShare: -1, Drained: true}
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
		p.Sent += g.Aggregate.Msgs
		if l := g.Aggregate.SendLateness; l != nil {
			for _, row := range l.Percentiles {
				if row.P == 99 {
					p.LatenessP99 = max(p.LatenessP99, row.Ns)
				}
			}
		}
	}
	if d := res.Distributed; d != nil {
		for _, a := range d.Agents {
			p.Agents = append(p.Agents, a.Name)
		}
	}
	if res.CPU != nil { // a run that measured none (getrusage missing) stays -1
		p.CPUShare = res.CPU.CoreShare
	}
	p.Pass = res.Stop.Reason == result.StopCompleted
	if !p.Pass {
		p.Failed = append(p.Failed, "run "+res.Stop.Reason)
		if res.Stop.Error != "" {
			p.Note = res.Stop.Error
		}
	}
	late := false       // a latency threshold failed only because the senders left late
	rateFailed := false // achieved/offered fell below its threshold
	for _, v := range res.SLO {
		if v.Pass {
			continue
		}
		p.Pass = false
		p.Failed = append(p.Failed, v.SLO)
		t, err := slo.Parse(v.SLO)
		if err == nil && t.Metric == "rate" {
			rateFailed = true
		}
		if err == nil && t.Metric == "p" {
			if u, ok := slo.Uncorrected(res, t); ok && t.Holds(u) {
				late = true
				p.Note = strings.TrimSpace(p.Note + fmt.Sprintf(" %s fails from the intended send times but holds from the actual ones (%.2fms): the senders left late (P99 %.2fms)", v.SLO, u/1e6, float64(p.LatenessP99)/1e6))
			}
		}
	}
	// Open-loop senders never wait for the server, so any shortfall that fails the run is
	// theirs, however small (a 1.2% one at 800,000/s on a quiet machine passed for the
	// server's limit before); closed-loop senders fall short by waiting for the server too,
	// so theirs counts only when natsperf's own CPU was the limit.
	short := offered > 0 && p.Achieved < 0.98*offered
	saturated := res.CPU != nil && res.CPU.CoreShare >= 0.9
	p.GeneratorBound = !p.Pass && ((short && saturated) || (openLoop && (short || rateFailed)) || late)
	return p
}

package engine

import (
	"github.com/natsperf/natsperf/internal/inflight"
)

// maxInflight is the open model's bound on operations awaiting answers for b's workload,
// across its clients: pacing.max_inflight, or rate x twice the tightest latency threshold
// (else x 1s) at the workload's highest rate; 0 without a fixed rate (one at a time).
func maxInflight(b *Build) int {
	p := b.Workload.Pacing
	peak := max(p.Rate, p.RateTo)
	for _, r := range p.Steps {
		peak = max(peak, r)
	}
	if peak <= 0 {
		return 0
	}
	if p.MaxInflight > 0 {
		return p.MaxInflight
	}
	return inflight.DefaultBound(peak, b.Spec.SLO)
}

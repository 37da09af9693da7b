package spec

import (
	"fmt"
	"math/rand/v2"
)

// Shaped returns s with every workload's load shape completed, the one place that does it:
// a stepped workload's rate is its first step (so "paced" means one thing everywhere), and
// Poisson arrivals without a seed get one drawn here, which the Result's settings then
// record. runner.Run shapes a Spec before it goes anywhere, so agents and natsperf-rust share
// the seed; shaping a shaped Spec changes nothing. s itself is not changed.
func (s *Spec) Shaped() *Spec {
	out := *s
	out.Workloads = append([]Workload(nil), s.Workloads...)
	for i := range out.Workloads {
		p := &out.Workloads[i].Pacing
		if p.Rate == 0 && len(p.Steps) > 0 && p.StepDuration > 0 {
			p.Rate = p.Steps[0]
		}
		if p.Arrivals == "poisson" && p.Seed == 0 {
			p.Seed = rand.Uint64() | 1
		}
	}
	return &out
}

// InstanceName names instance i (1-based) of a workload named name, as its groups are
// prefixed in the Result and a scenario's dry run lists it: pod1, pod2, or pod-1 after a
// name that ends in a digit (so pod1's instances are not pod11, pod12).
func InstanceName(name string, i int) string {
	if name != "" && name[len(name)-1] >= '0' && name[len(name)-1] <= '9' {
		return fmt.Sprintf("%s-%d", name, i)
	}
	return fmt.Sprintf("%s%d", name, i)
}

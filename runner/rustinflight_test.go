package runner

import (
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// TestWithInflightFillsRustOpenModels: natsperf-rust computes no default in-flight bound, so
// natsperf fills it in for the kinds it runs as the open model (service request and js pub
// sync at a fixed rate: rate x twice the tightest latency threshold) and for no other; a bound
// given is kept, and the caller's Spec is not changed.
func TestWithInflightFillsRustOpenModels(t *testing.T) {
	paced := spec.Pacing{Rate: 1000}
	s := &spec.Spec{SLO: spec.MustThresholds("p99<20ms"), Workloads: []spec.Workload{
		{Pacing: paced, Config: &spec.ServiceRequest{Subject: "a"}},
		{Pacing: paced, Config: &spec.JSPubSync{JSPublish: spec.JSPublish{Subject: "b"}}},
		{Pacing: paced, Config: &spec.JSPubAsync{JSPublish: spec.JSPublish{Subject: "c"}}},
		{Pacing: paced, Config: &spec.Pub{Subject: "d"}},
		{Pacing: spec.Pacing{Rate: 1000, MaxInflight: 7}, Config: &spec.JSPubSync{JSPublish: spec.JSPublish{Subject: "e"}}},
		{Config: &spec.JSPubSync{JSPublish: spec.JSPublish{Subject: "f"}}},
	}}
	got := withInflight(s)
	for i, want := range []int{40, 40, 0, 0, 7, 0} {
		if b := got.Workloads[i].Pacing.MaxInflight; b != want {
			t.Errorf("%s (rate %v): max_inflight %d, want %d", got.Workloads[i].Kind(), got.Workloads[i].Pacing.Rate, b, want)
		}
	}
	if s.Workloads[1].Pacing.MaxInflight != 0 {
		t.Error("withInflight changed the caller's Spec")
	}
}

package spec

import "testing"

// TestShaped: a stepped workload's rate becomes its first step, Poisson arrivals get one odd
// seed that a second shaping keeps, a given seed stays, and the Spec shaped is not changed.
func TestShaped(t *testing.T) {
	s := &Spec{Workloads: []Workload{
		{Pacing: Pacing{Steps: []float64{100, 200}, StepDuration: Duration(1e9)}},
		{Pacing: Pacing{Rate: 50, Arrivals: "poisson"}},
		{Pacing: Pacing{Rate: 50, Arrivals: "poisson", Seed: 42}},
	}}
	got := s.Shaped()
	if got.Workloads[0].Pacing.Rate != 100 {
		t.Errorf("stepped rate %v, want the first step 100", got.Workloads[0].Pacing.Rate)
	}
	seed := got.Workloads[1].Pacing.Seed
	if seed == 0 || seed%2 == 0 {
		t.Errorf("drawn seed %d, want an odd one", seed)
	}
	if again := got.Shaped().Workloads[1].Pacing.Seed; again != seed {
		t.Errorf("shaping again drew %d, want %d kept", again, seed)
	}
	if got.Workloads[2].Pacing.Seed != 42 {
		t.Errorf("a given seed became %d", got.Workloads[2].Pacing.Seed)
	}
	if s.Workloads[0].Pacing.Rate != 0 || s.Workloads[1].Pacing.Seed != 0 {
		t.Errorf("the Spec shaped was changed: %+v", s.Workloads)
	}
}

func TestInstanceName(t *testing.T) {
	for _, tt := range []struct {
		name string
		i    int
		want string
	}{{"pod", 1, "pod1"}, {"pod1", 2, "pod1-2"}, {"w1-", 3, "w1-3"}, {"", 2, "2"}} {
		if got := InstanceName(tt.name, tt.i); got != tt.want {
			t.Errorf("InstanceName(%q, %d) = %q, want %q", tt.name, tt.i, got, tt.want)
		}
	}
}

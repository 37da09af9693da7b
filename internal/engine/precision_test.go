package engine

import (
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/spec"
)

// TestResolvePrecision: the run's one decision of its pacing precision. Set, it is the Spec's
// for every paced group, not chosen; unset, it is chosen from the senders this process runs,
// each at its share of the group's rate at the schedule's fastest (a step of 50,000 msgs/s
// among 1,000s: 200us), and every paced group records it as chosen. A part of a distributed
// run counts its own clients, each at the whole group's per-client rate.
func TestResolvePrecision(t *testing.T) {
	steps := spec.Pacing{Rate: 1000, Steps: []float64{1000, 50000, 2000}, StepDuration: spec.Duration(time.Second)}
	for _, c := range []struct {
		name   string
		set    time.Duration
		pacing spec.Pacing
		g      harness.Group
		want   time.Duration
		chosen bool
	}{
		{"set", 3 * time.Millisecond, spec.Pacing{Rate: 50000}, harness.Group{Clients: 1}, 3 * time.Millisecond, false},
		{"chosen at 1,000/s", 0, spec.Pacing{Rate: 1000}, harness.Group{Clients: 1}, time.Millisecond, true},
		{"chosen at the fastest step", 0, steps, harness.Group{Clients: 1}, 200 * time.Microsecond, true},
		{"ramp to 50,000/s", 0, spec.Pacing{Rate: 100, RateTo: 50000, Ramp: spec.Duration(time.Second)}, harness.Group{Clients: 1}, 200 * time.Microsecond, true},
		// 1 of 10 clients here, of a 100,000 msgs/s group: 10,000/s on its own.
		{"a part's one sender", 0, spec.Pacing{Rate: 100000}, harness.Group{Clients: 1, Total: 10, Offset: 3}, time.Millisecond, true},
	} {
		s := &spec.Spec{PacePrecision: spec.Duration(c.set)}
		g := c.g
		got := resolvePrecision(s, []pacedGroup{pacedGroupOf(&g, c.pacing)})
		if got != c.want || g.PacePrecision != c.want || g.PacePrecisionChosen != c.chosen {
			t.Errorf("%s: %v, the group's %v (chosen %v); want %v (chosen %v)", c.name, got, g.PacePrecision, g.PacePrecisionChosen, c.want, c.chosen)
		}
	}
}

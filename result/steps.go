package result

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// LoadStep is one step of a run with a load shape (--steps), or one interval of a ramp: what
// the schedule offered in it and what each group did, so one run draws a latency-vs-load curve.
type LoadStep struct {
	Offset   time.Duration `json:"offset_ns"`    // from the run's start
	Duration time.Duration `json:"duration_ns"`  // its width
	Offered  float64       `json:"offered_rate"` // msgs/sec the schedule offered in it
	// Groups are each group's figures in the step, in the Result's group order.
	Groups []StepGroup `json:"groups"`
}

// StepGroup is one group in one load step, from its per-interval series.
type StepGroup struct {
	// Name is the group's name (Group.Name).
	Name string `json:"name"`
	// Msgs is the group's messages in the intervals that start in the step.
	Msgs int64   `json:"msgs"`
	Rate float64 `json:"rate"` // Msgs over the step's duration
	// Latency percentiles of the messages the group recorded in the step (absent without).
	P50 int64 `json:"p50_ns,omitempty"`
	// P99 is the step's 99th percentile latency, in nanoseconds.
	P99 int64 `json:"p99_ns,omitempty"`
	// P999 is the step's 99.9th percentile latency, in nanoseconds.
	P999 int64 `json:"p999_ns,omitempty"`
}

// FillSteps fills in each step's groups from the groups' series: the intervals whose start
// falls in the step. A step is best a whole number of intervals (the engine makes it so).
func FillSteps(steps []LoadStep, groups []Group) {
	for i := range steps {
		st := &steps[i]
		st.Groups = st.Groups[:0]
		for _, g := range groups {
			sg := StepGroup{Name: g.Name}
			var h *hdrhistogram.Histogram
			for _, iv := range g.Series {
				if iv.Offset < st.Offset || iv.Offset >= st.Offset+st.Duration {
					continue
				}
				sg.Msgs += iv.Msgs
				if iv.Histogram == "" {
					continue
				}
				ih, err := hdrhistogram.Decode([]byte(iv.Histogram))
				if err != nil {
					continue // a series without a readable histogram still counts
				}
				if h == nil {
					h = hdrhistogram.New(ih.LowestTrackableValue(), ih.HighestTrackableValue(), int(ih.SignificantFigures()))
				}
				h.Merge(ih)
			}
			if st.Duration > 0 {
				sg.Rate = float64(sg.Msgs) / st.Duration.Seconds()
			}
			if h != nil && h.TotalCount() > 0 {
				sg.P50, sg.P99, sg.P999 = h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9)
			}
			st.Groups = append(st.Groups, sg)
		}
	}
}

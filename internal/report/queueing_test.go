package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// TestQueueingRule: the note applies only to a Result holding its own unpaced publishers whose
// receivers' P50 is at least 1 ms and a tenth of the publishers' sending time.
func TestQueueingRule(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pub := func(send time.Duration, rate float64) result.Group {
		return result.Group{Name: "pub", Kind: "Core NATS publisher", TargetRate: rate,
			Aggregate: result.Aggregate{Start: t0, End: t0.Add(send)}}
	}
	sub := func(name string, p50 time.Duration) result.Group {
		return result.Group{Name: name, Kind: "Core NATS subscriber", Aggregate: result.Aggregate{
			Correctness: &result.Correctness{Received: 1},
			Latency:     &result.Latency{Percentiles: []result.Percentile{{P: 50, Ns: int64(p50)}}}}}
	}
	for _, tt := range []struct {
		name   string
		groups []result.Group
		want   bool
	}{
		{"unpaced, P50 a third of the sends", []result.Group{pub(time.Second, 0), sub("sub", 300*time.Millisecond)}, true},
		{"unpaced, P50 a trip", []result.Group{pub(time.Second, 0), sub("sub", 50*time.Millisecond)}, false},
		{"unpaced short run, P50 below 1 ms", []result.Group{pub(time.Millisecond, 0), sub("sub", 500*time.Microsecond)}, false},
		{"paced", []result.Group{pub(time.Second, 1000), sub("sub", 300*time.Millisecond)}, false},
		{"receivers alone (sub command)", []result.Group{sub("sub", 3*time.Second)}, false},
		{"scenario instance", []result.Group{pub(time.Second, 0), {Name: "pod1/pub", Aggregate: result.Aggregate{Start: t0, End: t0.Add(time.Second)}}, sub("pod1/sub", 2*time.Second)}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &result.Result{Groups: tt.groups}
			if _, ok := Queueing(r); ok != tt.want {
				t.Fatalf("Queueing = %v, want %v", ok, tt.want)
			}
			var b bytes.Buffer
			if err := Text(&b, r); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "mostly queueing") && strings.Contains(b.String(), "--rate"); got != tt.want {
				t.Fatalf("note printed %v, want %v:\n%s", got, tt.want, b.String())
			}
		})
	}
}

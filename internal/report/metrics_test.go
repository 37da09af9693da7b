package report

import (
	"math"
	"testing"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// TestPerClientRateSkipsClientsWithoutRate: "msgs/s per client" is the same figure in every
// table: the average over the clients that have a rate, as in nats bench's "avg" and the
// Result's own rates spread (Aggregate.Rates, which the per-instance table shows). A member of
// a shared consumer that got nothing (its group reached the total first) has no rate; counting
// it as 0 made the cells table halve the per-instance table's figure for the same runs.
func TestPerClientRateSkipsClientsWithoutRate(t *testing.T) {
	res := &result.Result{Groups: []result.Group{{
		Name: "sub",
		Clients: []result.Client{
			{ID: 1, Msgs: 100, MsgsPerSec: 1000}, {ID: 2, Msgs: 100, MsgsPerSec: 3000},
			{ID: 3}, {ID: 4},
		},
		Aggregate: result.Aggregate{Msgs: 200, MsgsPerSec: 2500, Rates: result.Spread{Min: 1000, Avg: 2000, Max: 3000}},
	}}}
	v := Values(res)
	if got, want := v["sub.rate"], res.Groups[0].Aggregate.Rates.Avg; math.Abs(got-want) > 1e-9 {
		t.Fatalf("sub msgs/s per client %v, want %v (the clients' rates spread)", got, want)
	}
	if v["sub.total"] != 2500 {
		t.Fatalf("sub total %v, want 2500", v["sub.total"])
	}
}

// TestLatencyPercentiles: P50, P99 and P99.9 come from the groups' merged histograms: 10,000
// samples of 1..10,000 µs read 5 ms, 9.9 ms and 9.99 ms (within the histogram's precision).
func TestLatencyPercentiles(t *testing.T) {
	h := histo.New()
	for us := int64(1); us <= 10_000; us++ {
		histo.Record(h, us*1000)
	}
	enc, err := histo.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	res := &result.Result{Groups: []result.Group{{Name: "sub", Aggregate: result.Aggregate{Latency: &result.Latency{Histogram: enc}}}}}
	v := Values(res)
	for key, want := range map[string]float64{"sub.p50": 5e6, "sub.p99": 9.9e6, "sub.p999": 9.99e6} {
		if got := v[key]; math.Abs(got-want)/want > 0.01 {
			t.Errorf("%s = %v, want %v within 1%%", key, got, want)
		}
	}
	found := false
	for _, m := range Metrics(&Set{Cells: []*Cell{{Runs: []Entry{{Result: res}}}}}) {
		found = found || m.Key == "sub.p999" && m.Label == "sub P99.9"
	}
	if !found {
		t.Error("no sub P99.9 metric")
	}
}

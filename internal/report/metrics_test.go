package report

import (
	"math"
	"testing"

	"github.com/natsperf/natsperf/internal/result"
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

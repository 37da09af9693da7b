package core_test

import (
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/stamp"
)

// TestOpenRequestsKeepTheSchedule: a requester at 1,000/s against one responder that takes
// 2ms per request (500/s at most) in the open model sends on its schedule (send lateness
// P50 well under the 100ms a closed loop would reach: there each send waits for the reply
// before it) and the replies queue at the responder, which the latency from the actual sends
// shows: the last of 200 requests waits for the ~100 before it still queued. Every request is
// answered and recorded once, on the reply goroutine (run under -race in CI).
func TestOpenRequestsKeepTheSchedule(t *testing.T) {
	srv := startServer(t, false)
	const n, sleep = 200, 2 * time.Millisecond
	serve := core.ServeConfig{Subject: "svc.open", Sleep: sleep}
	req := core.RequestConfig{Subject: "svc.open", Size: 16, Timeout: 10 * time.Second, Rate: 1000, IDs: stamp.NewIDs(), MaxInflight: 400}
	res := run(t, srv.URL(), 0, &harness.Plan{
		Command: "service request", Latency: true, Corrected: true,
		Groups: []*harness.Group{
			{Name: "serve", Kind: "responder", Clients: 1, Shares: []int64{n}, Shared: true,
				New: func(int) harness.Client { return core.NewResponder(serve) }},
			{Name: "request", Kind: "requester", Clients: 1, Shares: []int64{n}, Producer: true, Rate: 1000,
				New: func(int) harness.Client { return core.NewRequester(req) }},
		},
	})
	g := res.Groups[1].Aggregate
	l := g.Latency
	if g.Msgs != n || l == nil || l.Count != n || l.Uncorrected == nil || l.Uncorrected.Count != n {
		t.Fatalf("%d requests counted, latency %+v: want %d, each once both ways", g.Msgs, l, n)
	}
	if g.Events.MaxInflight != 400 || g.Events.Timeouts != 0 {
		t.Fatalf("events %+v: want the bound 400 and no timeout", g.Events)
	}
	late := g.SendLateness
	if late == nil || late.Count != n {
		t.Fatalf("send lateness %+v: want one per request", late)
	}
	p50 := time.Duration(histo.At(late, 50))
	t.Logf("send lateness P50 %v; latency from the sends P50 %v max %v", p50, time.Duration(histo.At(l.Uncorrected, 50)), time.Duration(l.Uncorrected.Max))
	if p50 > 50*time.Millisecond {
		t.Fatalf("send lateness P50 %v: the requests did not go out on their schedule", p50)
	}
	if m := time.Duration(l.Uncorrected.Max); m < 20*time.Millisecond && p50 < 5*time.Millisecond {
		t.Fatalf("longest reply from the send %v: 200 requests sent within ~0.2s to a 2ms-per-request responder must queue", m)
	}
}

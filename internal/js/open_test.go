package js

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// TestOpenSyncPubCountsAcksErrorsAndTimeouts: a sync publisher at a fixed rate in the open
// model (up to 20 publishes awaiting acks) against a stream side that acks as JetStream does,
// except every tenth publish from the fourth, refused with an error reply, and every tenth
// from the eighth, never answered. Each ack is recorded once with its latency, each error
// reply counted as an error and never stored (Failed), each unanswered publish a timeout
// after --ack-timeout, and the late ones of the others do not hold the schedule: the run
// ends within the schedule plus about one timeout. Run under -race in CI (the acks are
// recorded on the reply goroutine).
func TestOpenSyncPubCountsAcksErrorsAndTimeouts(t *testing.T) {
	s := natstest.Server(t, nil)
	rc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var seen atomic.Int64
	if _, err := rc.Subscribe("open.x", func(m *nats.Msg) {
		n := seen.Add(1)
		switch n % 10 {
		case 4:
			_ = m.Respond([]byte(`{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"}}`))
		case 8:
		default:
			_ = m.Respond(fmt.Appendf(nil, `{"stream":"open","seq":%d}`, n))
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := rc.Flush(); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const n = 100
	clk := record.NewClock()
	env := &harness.Env{
		ID: 1, Count: 1, Share: n, Bounded: true, Clock: clk,
		Rec:  record.New(record.Options{Clock: clk, Latency: true, Corrected: true}),
		Dial: func(context.Context) (*harness.Conn, error) { return &harness.Conn{Conn: nc}, nil },
	}
	env.Start = clk.Now()
	acked, failed := NewTally(0), NewTally(0)
	p := NewPublisher(PubConfig{Mode: Sync, Subject: "open.x", Size: 64, Rate: 1000, AckTimeout: 300 * time.Millisecond,
		IDs: stamp.NewIDs(), MaxInflight: 20, Acked: acked, Failed: failed})
	ctx := context.Background()
	if err := p.Prepare(ctx, env); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.Run(ctx, env); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	p.Close()
	c := env.Rec.Client(1, n, false)
	ev := &env.Rec.Events
	if c.Msgs != 80 || c.Latency.Count != 80 || acked.Load() != 80 || ev.Errors.Load() != 10 || failed.Load() != 10 || ev.Timeouts.Load() != 10 {
		t.Fatalf("%d acked (%d latencies, tally %d), %d errors (%d failed), %d timeouts: want 80, 10, 10",
			c.Msgs, c.Latency.Count, acked.Load(), ev.Errors.Load(), failed.Load(), ev.Timeouts.Load())
	}
	if ev.MaxInflight.Load() != 20 || seen.Load() != n {
		t.Fatalf("bound %d, the stream side saw %d publishes: want 20 and %d", ev.MaxInflight.Load(), seen.Load(), n)
	}
	// 100 publishes at 1,000/s take 0.1s, and one timeout (0.3s) comes on top; waiting out ten
	// in a row (a closed loop) takes 3s at least.
	if took > 2900*time.Millisecond {
		t.Fatalf("the run took %v: unanswered publishes held the schedule", took)
	}
	t.Logf("took %v; %d sends waited at the bound", took, ev.InflightFull.Load())
}

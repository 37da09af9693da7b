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

// TestAsyncPubCountsLostAcksAndGoesOn: an unpaced async publisher that reads its acks itself
// counts each publish whose ack never comes as one timeout after --ack-timeout and goes on
// with the rest; the acks that do come are recorded, and the late ones of the publishes it
// gave up (sent after their timeout, to the inbox it left) are not. The stream side is a
// responder that acks as JetStream does, except the first three publishes, which it answers
// only long after the timeout.
func TestAsyncPubCountsLostAcksAndGoesOn(t *testing.T) {
	s := natstest.Server(t, nil)
	rc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var seen atomic.Int64
	if _, err := rc.Subscribe("lossy.x", func(m *nats.Msg) {
		n := seen.Add(1)
		ack := fmt.Appendf(nil, `{"stream":"lossy","seq":%d}`, n)
		if n <= 3 {
			reply := m.Reply
			time.AfterFunc(400*time.Millisecond, func() { _ = rc.Publish(reply, ack) })
			return
		}
		_ = m.Respond(ack)
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
	const n = 40
	clk := record.NewClock()
	env := &harness.Env{
		ID: 1, Count: 1, Share: n, Bounded: true, Clock: clk,
		Rec:  record.New(record.Options{Clock: clk, Latency: true}),
		Dial: func(context.Context) (*harness.Conn, error) { return &harness.Conn{Conn: nc}, nil },
	}
	env.Start = clk.Now()
	p := NewPublisher(PubConfig{Mode: Async, Subject: "lossy.x", Size: 64, Batch: 5, AckTimeout: 150 * time.Millisecond, IDs: stamp.NewIDs()})
	ctx := context.Background()
	if err := p.Prepare(ctx, env); err != nil {
		t.Fatal(err)
	}
	if err := p.Run(ctx, env); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond) // the late acks arrive, to an inbox given up
	p.Close()
	c := env.Rec.Client(1, n, false)
	if timeouts := env.Rec.Events.Timeouts.Load(); timeouts != 3 || c.Msgs != n-3 || c.Latency.Count != n-3 || env.Rec.Events.Errors.Load() != 0 {
		t.Fatalf("%d timeouts, %d acked, %d latencies, %d errors; want 3, %d, %d, 0",
			timeouts, c.Msgs, c.Latency.Count, env.Rec.Events.Errors.Load(), n-3, n-3)
	}
	if got := seen.Load(); got != n {
		t.Fatalf("the stream side saw %d publishes, want %d", got, n)
	}
}

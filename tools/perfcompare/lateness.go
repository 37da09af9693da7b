package main

import (
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/stamp"
)

// lateness is what a paced sender's messages say about its own timing, read by perfcompare
// itself (not computed by the process measured): every paced case sends extended stamps,
// which carry the intended and the actual send time, and a subscriber here records actual
// minus intended. natsperf and the floor write the same stamp, so one reader judges both.
type lateness struct {
	sub  *nats.Subscription
	h    *hdrhistogram.Histogram
	n    atomic.Int64
	want int64
}

// watchLateness subscribes to subject on nc before a paced run; want is the messages the
// run sends.
func watchLateness(nc *nats.Conn, subject string, want int64) (*lateness, error) {
	l := &lateness{h: hdrhistogram.New(1, int64(time.Minute), 3), want: want}
	sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
		if _, _, intended, actual, ok := stamp.GetExt(m.Data); ok && actual != 0 {
			_ = l.h.RecordValue(max(actual-intended, 1)) // on time records as 1 ns
		}
		l.n.Add(1)
	})
	if err != nil {
		return nil, err
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return nil, err
	}
	l.sub = sub
	return l, nc.Flush()
}

// done waits (a little) for the run's last messages, unsubscribes and returns P50 and P99 in
// microseconds, with how many messages carried a stamp.
func (l *lateness) done() (p50, p99 float64, stamped int64) {
	for deadline := time.Now().Add(3 * time.Second); l.n.Load() < l.want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	_ = l.sub.Unsubscribe()
	time.Sleep(10 * time.Millisecond) // the callback's last run
	return float64(l.h.ValueAtQuantile(50)) / 1e3, float64(l.h.ValueAtQuantile(99)) / 1e3, l.h.TotalCount()
}

package latency

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/record"
)

// RouteTimeout bounds how long the publisher waits for server A to learn of the subscription
// on server B.
const RouteTimeout = 5 * time.Second

// Link ties the run's publisher to its subscriber: before the start, the publisher proves that
// a message published on A reaches the subscriber on B, so no early message is lost to
// interest still propagating between clustered servers. It also keeps both server RTTs.
type Link struct {
	Subject string // the measured subject
	probe   string // a subject of its own, so probes never count as measured messages

	subReady chan struct{} // closed once the subscriber's subscriptions are flushed
	subFail  chan struct{} // closed when the subscriber's Prepare failed
	failOnce sync.Once
	routed   chan struct{} // closed by the first probe to arrive
	once     sync.Once
	probeSub *nats.Subscription

	mu             sync.Mutex
	pubRTT, subRTT time.Duration

	// short is what the publisher sent when it sent fewer than its share (0 otherwise), set
	// once it is done: behind its schedule, it stops at the duration.
	short atomic.Int64
	// lastSent is when the publisher sent its last message (Unix ns; 0: none), set once it
	// is done: the Result's publisher End is the slot after it.
	lastSent atomic.Int64
}

// LastSent is when the publisher sent its last message (zero before it is done, or none).
func (l *Link) LastSent() time.Time { return record.Time(l.lastSent.Load()) }

// NewLink returns a link for subject.
func NewLink(subject string) *Link {
	return &Link{Subject: subject, probe: nats.NewInbox(), subReady: make(chan struct{}), subFail: make(chan struct{}), routed: make(chan struct{})}
}

// RTTs are the publisher's and subscriber's round trips to their servers, measured once
// connected (before the start).
func (l *Link) RTTs() (pub, sub time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pubRTT, l.subRTT
}

// subscribed is called by the subscriber once its measured subscription is in place: it adds
// the probe subscription behind it (servers forward interest in order, so once a probe arrives
// the measured subject's interest has reached A too), then measures the RTT.
func (l *Link) subscribed(c *harness.Conn) error {
	sub, err := c.Subscribe(l.probe, func(*nats.Msg) { l.once.Do(func() { close(l.routed) }) })
	if err != nil {
		return fmt.Errorf("probe subscription: %w", err)
	}
	l.probeSub = sub
	rtt, err := c.RTT()
	if err != nil {
		return fmt.Errorf("sub server RTT: %w", err)
	}
	l.mu.Lock()
	l.subRTT = rtt
	l.mu.Unlock()
	close(l.subReady)
	return nil
}

// waitRoute is called by the publisher once connected: it measures its RTT, then publishes
// probes on A until one reaches the subscriber on B.
func (l *Link) waitRoute(ctx context.Context, c *harness.Conn) error {
	rtt, err := c.RTT()
	if err != nil {
		return fmt.Errorf("pub server RTT: %w", err)
	}
	l.mu.Lock()
	l.pubRTT = rtt
	l.mu.Unlock()
	deadline := time.NewTimer(RouteTimeout)
	defer deadline.Stop()
	select {
	case <-l.subReady:
	case <-l.subFail:
		return nil // the subscriber reports why; the run does not start
	case <-ctx.Done():
		return ctx.Err()
	case <-deadline.C:
		return fmt.Errorf("the subscriber on server B was not ready within %v", RouteTimeout)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := c.Publish(l.probe, nil); err != nil {
			return fmt.Errorf("probe publish: %w", err)
		}
		if err := c.Flush(); err != nil {
			return fmt.Errorf("probe flush: %w", err)
		}
		select {
		case <-l.routed:
			_ = l.probeSub.Unsubscribe()
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("messages published on server A did not reach the subscriber on server B within %v: are A and B in one cluster (or supercluster)?", RouteTimeout)
		case <-tick.C:
		}
	}
}

// subscriberFailed tells a waiting publisher that the subscriber will never be ready.
func (l *Link) subscriberFailed() { l.failOnce.Do(func() { close(l.subFail) }) }

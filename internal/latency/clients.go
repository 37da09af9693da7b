package latency

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/record"
)

// Publisher is core NATS' fixed-rate publisher that, once connected, waits for the link.
type Publisher struct {
	*core.Publisher
	link *Link
}

// NewPublisher returns the run's publisher; cfg must have a Rate.
func NewPublisher(cfg core.PubConfig, link *Link) *Publisher {
	cfg.Subject = link.Subject
	return &Publisher{Publisher: core.NewPublisher(cfg), link: link}
}

// Prepare connects to server A and waits until what it publishes reaches server B.
func (p *Publisher) Prepare(ctx context.Context, env *harness.Env) error {
	if err := p.Publisher.Prepare(ctx, env); err != nil {
		return err
	}
	return p.link.waitRoute(ctx, p.Conn())
}

// Run publishes, then tells the subscriber when it sent fewer than its share: behind its
// schedule, it stopped at the duration.
func (p *Publisher) Run(ctx context.Context, env *harness.Env) error {
	err := p.Publisher.Run(ctx, env)
	p.link.lastSent.Store(env.Rec.LastMessage())
	if n := env.Rec.Progress(); n < env.Share {
		p.link.short.Store(n)
	}
	return err
}

// MinDrain is the least time the subscriber waits for the rest after the publisher is done.
const MinDrain = time.Second

// Subscriber receives the run's messages on server B. It never waits for lost messages: once
// the publisher is done, it waits at most Drain(max latency seen) for the rest.
type Subscriber struct {
	link   *Link
	conn   *harness.Conn
	rec    *record.Recorder
	sub    *nats.Subscription
	done   chan struct{}
	exited chan struct{}
	maxLat atomic.Int64 // largest latency so far, ns, for the drain bound
}

// NewSubscriber returns the run's subscriber.
func NewSubscriber(link *Link) *Subscriber { return &Subscriber{link: link} }

// Drain is how long the subscriber waits for the rest once the publisher is done, given the
// largest latency seen: ten times it, at least MinDrain.
func Drain(maxLatency time.Duration) time.Duration { return max(MinDrain, 10*maxLatency) }

// Prepare connects to server B, subscribes and sets up the link's probe.
func (s *Subscriber) Prepare(ctx context.Context, env *harness.Env) (err error) {
	defer func() {
		if err != nil {
			s.link.subscriberFailed()
		}
	}()
	c, err := env.Dial(ctx)
	if err != nil {
		return err
	}
	s.conn, s.rec = c, env.Rec
	s.done = make(chan struct{})
	s.exited = make(chan struct{})
	rec, clk, share := env.Rec, env.Clock, env.Share
	full := false // done is closed; the callback's own
	s.sub, err = c.Subscribe(s.link.Subject, func(m *nats.Msg) {
		if l := rec.Received(clk.Now(), m.Data); l > s.maxLat.Load() {
			s.maxLat.Store(l)
		}
		if !full && rec.Unique() == share {
			full = true // duplicates may follow: the count stays at the share
			close(s.done)
		}
	})
	if err != nil {
		return err
	}
	s.sub.SetClosedHandler(func(string) { close(s.exited) })
	if err := s.sub.SetPendingLimits(-1, -1); err != nil {
		return err
	}
	if err := c.FlushTimeout(10 * time.Second); err != nil {
		return err
	}
	return s.link.subscribed(c)
}

// Run waits for every message, or for the drain time after the publisher is done.
func (s *Subscriber) Run(ctx context.Context, env *harness.Env) error {
	var drain, sent <-chan time.Time
	producers := env.ProducersDone
	for {
		select {
		case <-s.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-s.conn.Lost():
			return s.conn.Err()
		case <-producers:
			producers = nil
			t := time.NewTimer(Drain(time.Duration(s.maxLat.Load())))
			defer t.Stop()
			drain = t.C
			poll := time.NewTicker(5 * time.Millisecond)
			defer poll.Stop()
			sent = poll.C
		case <-sent:
			// Every message the publisher sent has arrived (it may have sent fewer than its
			// share when it could not keep the rate).
			if short := s.link.short.Load(); short > 0 && s.rec.Progress() >= short {
				return nil
			}
		case <-drain:
			return harness.ErrIdle // the rest is lost: counted, not waited for
		}
	}
}

// Close unsubscribes and waits, boundedly, for the delivery goroutine.
func (s *Subscriber) Close() {
	if s.sub == nil {
		return
	}
	if d, err := s.sub.Dropped(); err == nil && d > 0 {
		s.rec.Events.Dropped.Add(int64(d)) // read before unsubscribing: the library forgets it
	}
	_ = s.sub.Unsubscribe()
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
	}
}

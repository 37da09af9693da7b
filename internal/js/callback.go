package js

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/idle"
)

// NewConsumer returns a consumer client of cfg.Kind.
func NewConsumer(cfg ConsumeConfig) harness.Client {
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = DefaultAckTimeout
	}
	switch cfg.Kind {
	case Fetch:
		return &fetcher{cfg: cfg}
	case Ordered:
		return &callbackConsumer{cfg: cfg, open: openOrdered}
	case Push:
		return &callbackConsumer{cfg: cfg, open: openPush}
	}
	return &callbackConsumer{cfg: cfg, open: openPull}
}

// starter begins consuming with the handler; it is called at the start of the run, so nothing
// arrives before the barrier.
type starter func() (jetstream.ConsumeContext, error)

// callbackConsumer receives through the library's callback: ordered, consume and push.
type callbackConsumer struct {
	cfg    ConsumeConfig
	open   func(ctx context.Context, js jetstream.JetStream, cfg ConsumeConfig, h *handler) (starter, error)
	conn   *harness.Conn
	js     jetstream.JetStream
	h      *handler
	start  starter
	cc     jetstream.ConsumeContext
	reopen time.Time // when the consumer was last made again (RideOut)
}

func (c *callbackConsumer) Prepare(ctx context.Context, env *harness.Env) error {
	conn, js, err := dial(ctx, env, jetstream.WithDefaultTimeout(c.cfg.AckTimeout))
	if err != nil {
		return err
	}
	c.conn, c.js = conn, js
	if c.h, err = newHandler(ctx, c.cfg, env); err != nil {
		return err
	}
	if c.cfg.RideOut && c.cfg.Kind != Push {
		c.h.stalled = c.stalled
	}
	c.start, err = c.open(ctx, js, c.cfg, c.h)
	return err
}

// stalled runs when a client riding out a fault got nothing for the idle timeout. When the
// stream holds more for it, the consumer is made again (an ordered one from the stream
// sequence after the last delivered, a durable one where its server-side state is), at most
// once per idle timeout, as an application would; it reports whether more is stored.
func (c *callbackConsumer) stalled(ctx context.Context) bool {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if !moreStored(qctx, c.js, c.cfg, c.h.lastSeq.Load()) {
		return false
	}
	if time.Since(c.reopen) < idle.Timeout(c.cfg.IdleTimeout) {
		return true
	}
	c.reopen = time.Now()
	cfg := c.cfg
	if last := c.h.lastSeq.Load(); cfg.Kind == Ordered && last > 0 {
		cfg.Consumer.StartSeq = last + 1
	}
	octx, ocancel := context.WithTimeout(ctx, 5*time.Second)
	defer ocancel()
	start, err := c.open(octx, c.js, cfg, c.h)
	if err != nil {
		count(&c.h.rec.Events, err)
		return true // the stream still holds messages: try again after the next idle timeout
	}
	stopConsume(c.cc) // its callbacks are over before the new consumer's begin
	cc, err := start()
	if err != nil {
		count(&c.h.rec.Events, err)
		return true
	}
	c.cc = cc
	return true
}

// moreStored reports whether the stream holds messages the client has not had: past the last
// stream sequence delivered for an ordered consumer, pending on a durable one.
func moreStored(ctx context.Context, js jetstream.JetStream, cfg ConsumeConfig, last uint64) bool {
	if cfg.Kind == Ordered {
		s, err := js.Stream(ctx, cfg.Stream)
		if err != nil {
			return true // no answer (a leader election): assume the stream has more
		}
		if last == 0 && cfg.Consumer.StartSeq > 0 {
			last = cfg.Consumer.StartSeq - 1
		}
		return s.CachedInfo().State.LastSeq > last
	}
	cons, err := js.Consumer(ctx, cfg.Stream, cfg.Consumer.Name)
	if err != nil {
		return !errors.Is(err, jetstream.ErrConsumerNotFound) && !errors.Is(err, jetstream.ErrStreamNotFound)
	}
	info := cons.CachedInfo()
	return info.NumPending > 0 || info.NumAckPending > 0
}

// pullOpts are the options of a pull consumer's Consume: with RideOut, pull requests that
// expire in 2s with 1s heartbeats, so a consumer lost with its server is noticed and made
// again by the library within the idle timeout (its defaults take 10s or more).
func pullOpts(cfg ConsumeConfig, h *handler) []jetstream.PullConsumeOpt {
	opts := []jetstream.PullConsumeOpt{jetstream.ConsumeErrHandler(h.onErr), jetstream.PullMaxMessages(cfg.Batch)}
	if cfg.RideOut {
		opts = append(opts, jetstream.PullExpiry(2*time.Second), jetstream.PullHeartbeat(time.Second))
	}
	return opts
}

func (c *callbackConsumer) Run(ctx context.Context, env *harness.Env) error {
	c.h.begin(ctx, env)
	cc, err := patiently(ctx, c.start)
	if err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	c.cc = cc
	return c.h.wait(ctx, env, c.conn)
}

func (c *callbackConsumer) Close() { stopConsume(c.cc) }

// patiently calls f, asking again while the cluster does not answer (an R3 stream created a
// moment ago, a meta leader change: "no responders"), for at most createAttempt; other errors,
// and the last retryable one, are returned as they are.
func patiently[T any](ctx context.Context, f func() (T, error)) (T, error) {
	deadline := time.Now().Add(createAttempt)
	for {
		v, err := f()
		if err == nil || !retryable(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// orderedInactive is how long an ordered consumer outlives its client.
const orderedInactive = 10 * time.Second

// openOrdered creates the client's own ordered consumer.
func openOrdered(ctx context.Context, js jetstream.JetStream, cfg ConsumeConfig, h *handler) (starter, error) {
	dp, err := DeliverPolicy(cfg.Consumer.Deliver)
	if err != nil {
		return nil, err
	}
	// The server drops the consumer soon after the run instead of keeping it for minutes on a
	// stream that may be the user's (and piling them up over a scenario's repetitions).
	occ := jetstream.OrderedConsumerConfig{DeliverPolicy: dp, Metadata: mark(), InactiveThreshold: orderedInactive}
	if cfg.Consumer.StartSeq > 0 {
		occ.DeliverPolicy, occ.OptStartSeq = jetstream.DeliverByStartSequencePolicy, cfg.Consumer.StartSeq
	}
	if cfg.Consumer.Filter != "" {
		occ.FilterSubjects = []string{cfg.Consumer.Filter}
	}
	cons, err := patiently(ctx, func() (jetstream.Consumer, error) { return js.OrderedConsumer(ctx, cfg.Stream, occ) })
	if err != nil {
		return nil, fmt.Errorf("ordered consumer on %s: %w", cfg.Stream, err)
	}
	return func() (jetstream.ConsumeContext, error) {
		return cons.Consume(h.handle, pullOpts(cfg, h)...)
	}, nil
}

// openPull binds to the durable pull consumer set up before the run.
func openPull(ctx context.Context, js jetstream.JetStream, cfg ConsumeConfig, h *handler) (starter, error) {
	cons, err := js.Consumer(ctx, cfg.Stream, cfg.Consumer.Name)
	if err != nil {
		return nil, fmt.Errorf("consumer %s on %s: %w", cfg.Consumer.Name, cfg.Stream, err)
	}
	return func() (jetstream.ConsumeContext, error) {
		return cons.Consume(h.handle, pullOpts(cfg, h)...)
	}, nil
}

// openPush binds to the durable push consumer set up before the run.
func openPush(ctx context.Context, js jetstream.JetStream, cfg ConsumeConfig, h *handler) (starter, error) {
	cons, err := js.PushConsumer(ctx, cfg.Stream, cfg.Consumer.Name)
	if err != nil {
		return nil, fmt.Errorf("push consumer %s on %s: %w", cfg.Consumer.Name, cfg.Stream, err)
	}
	return func() (jetstream.ConsumeContext, error) {
		return cons.Consume(h.handle, jetstream.ConsumeErrHandler(h.onErr))
	}, nil
}

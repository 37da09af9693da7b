package js

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/bench"
)

// NewConsumer returns a consumer client of cfg.Kind.
func NewConsumer(cfg ConsumeConfig) bench.Client {
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
	cfg   ConsumeConfig
	open  func(ctx context.Context, js jetstream.JetStream, cfg ConsumeConfig, h *handler) (starter, error)
	conn  *bench.Conn
	h     *handler
	start starter
	cc    jetstream.ConsumeContext
}

func (c *callbackConsumer) Prepare(ctx context.Context, env *bench.Env) error {
	conn, js, err := dial(ctx, env, jetstream.WithDefaultTimeout(c.cfg.AckTimeout))
	if err != nil {
		return err
	}
	c.conn = conn
	if c.h, err = newHandler(ctx, c.cfg, env); err != nil {
		return err
	}
	c.start, err = c.open(ctx, js, c.cfg, c.h)
	return err
}

func (c *callbackConsumer) Run(ctx context.Context, env *bench.Env) error {
	c.h.ctx, c.h.start = ctx, env.Start
	cc, err := c.start()
	if err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	c.cc = cc
	return c.h.wait(ctx, env, c.conn)
}

func (c *callbackConsumer) Close() { stopConsume(c.cc) }

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
	cons, err := js.OrderedConsumer(ctx, cfg.Stream, occ)
	if err != nil {
		return nil, fmt.Errorf("ordered consumer on %s: %w", cfg.Stream, err)
	}
	return func() (jetstream.ConsumeContext, error) {
		return cons.Consume(h.handle, jetstream.ConsumeErrHandler(h.onErr), jetstream.PullMaxMessages(cfg.Batch))
	}, nil
}

// openPull binds to the durable pull consumer set up before the run.
func openPull(ctx context.Context, js jetstream.JetStream, cfg ConsumeConfig, h *handler) (starter, error) {
	cons, err := js.Consumer(ctx, cfg.Stream, cfg.Consumer.Name)
	if err != nil {
		return nil, fmt.Errorf("consumer %s on %s: %w", cfg.Consumer.Name, cfg.Stream, err)
	}
	return func() (jetstream.ConsumeContext, error) {
		return cons.Consume(h.handle, jetstream.ConsumeErrHandler(h.onErr), jetstream.PullMaxMessages(cfg.Batch))
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

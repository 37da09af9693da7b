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

// fetcher pulls batches from the durable consumer with Fetch and handles them on its own
// goroutine.
type fetcher struct {
	cfg  ConsumeConfig
	conn *harness.Conn
	cons jetstream.Consumer
	h    *handler
}

func (f *fetcher) Prepare(ctx context.Context, env *harness.Env) error {
	conn, js, err := dial(ctx, env, jetstream.WithDefaultTimeout(f.cfg.AckTimeout))
	if err != nil {
		return err
	}
	f.conn = conn
	if f.h, err = newHandler(ctx, f.cfg, env); err != nil {
		return err
	}
	if f.cfg.RideOut {
		// Each fetch is a new pull: riding out a fault is waiting while the consumer has more.
		f.h.stalled = func(ctx context.Context) bool {
			qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			return moreStored(qctx, js, f.cfg, 0)
		}
	}
	f.cons, err = js.Consumer(ctx, f.cfg.Stream, f.cfg.Consumer.Name)
	if err != nil {
		return fmt.Errorf("consumer %s on %s: %w", f.cfg.Consumer.Name, f.cfg.Stream, err)
	}
	return nil
}

// Run fetches until the share (or the group's total) is in, or nothing came for the idle
// timeout. Each fetch waits at most what is left of the idle timeout, so the client never hangs
// and ends as the callback receivers do.
func (f *fetcher) Run(ctx context.Context, env *harness.Env) error {
	h, clk := f.h, env.Clock
	watch := idle.NewWatch(f.cfg.IdleTimeout, f.cfg.IdleFromStart, h.progress(), clk.Now())
	h.begin(ctx, env)
	producers := env.ProducersDone
	own := h.n
	for {
		select {
		case <-h.doneCh():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-f.conn.Lost():
			return f.conn.Err()
		case <-producers:
			producers = nil
			watch.Arm(clk.Now())
		default:
		}
		if h.finished.Load() {
			return nil
		}
		// A fetch that expires while the server is still delivering loses those messages until
		// their ack wait, so expiries are kept long: what is left of the idle timeout (all of
		// it until messages start), at least 50ms, at most 5s.
		wait := min(max(watch.Left(clk.Now()), 50*time.Millisecond), 5*time.Second)
		if err := f.fetch(ctx, env, wait); err != nil {
			return err
		}
		if h.finished.Load() || isClosed(h.doneCh()) {
			return nil
		}
		if h.n != own && f.cfg.Group == nil {
			// The idle clock runs from this client's last message, not from the fetch's expiry.
			own = h.n
			watch.Saw(h.progress(), h.lastAt)
		}
		now := clk.Now()
		if watch.Idle(now, h.progress(), f.conn.IsConnected()) {
			if !h.rideOn(ctx, watch.Quiet(now)) {
				return harness.ErrIdle
			}
			watch.Restart(now)
		}
	}
}

// fetch pulls one batch and handles it; errors the client cannot go on after are returned,
// the others counted.
func (f *fetcher) fetch(ctx context.Context, env *harness.Env, wait time.Duration) error {
	batch, err := f.cons.Fetch(f.want(), jetstream.FetchMaxWait(wait))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fatal(err) && !(f.cfg.RideOut && passing(err)) {
			return f.conn.Explain("fetch", err)
		}
		count(&env.Rec.Events, err)
		if f.cfg.RideOut {
			time.Sleep(50 * time.Millisecond) // no leader yet: do not spin on instant refusals
		}
		return nil
	}
	for msg := range batch.Messages() {
		f.h.handle(msg)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		if fatal(err) && !(f.cfg.RideOut && passing(err)) {
			return f.conn.Explain("fetch", err)
		}
		if !isTimeout(err) {
			count(&env.Rec.Events, err)
		}
	}
	return nil
}

// want is the next fetch's size: a batch, or less when fewer messages are still expected, so the
// last fetch does not wait for its expiry.
func (f *fetcher) want() int {
	left := f.h.share - f.h.n
	if g := f.cfg.Group; g != nil {
		left = g.total - g.Load()
	}
	return int(max(1, min(int64(f.cfg.Batch), left)))
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (f *fetcher) Close() {}

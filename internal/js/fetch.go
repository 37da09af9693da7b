package js

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/bench"
)

// fetcher pulls batches from the durable consumer with Fetch and handles them on its own
// goroutine.
type fetcher struct {
	cfg  ConsumeConfig
	conn *bench.Conn
	cons jetstream.Consumer
	h    *handler
}

func (f *fetcher) Prepare(ctx context.Context, env *bench.Env) error {
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
// timeout. Each fetch waits at most a fraction of the idle timeout, so the client never hangs.
func (f *fetcher) Run(ctx context.Context, env *bench.Env) error {
	h := f.h
	h.begin(ctx, env)
	idle := f.cfg.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	// A fetch that expires while the server is still delivering loses those messages until
	// their ack wait, so expiries are kept long: the idle timeout itself, at most 5s.
	wait := min(max(idle, 50*time.Millisecond), 5*time.Second)
	armed := f.cfg.IdleFromStart
	last, lastChange := h.progress(), time.Now()
	lastProgress := lastChange
	for {
		select {
		case <-h.doneCh():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-f.conn.Lost():
			return f.conn.Err()
		case <-env.ProducersDone:
			if !armed {
				armed, lastChange = true, time.Now()
			}
		default:
		}
		if h.finished.Load() {
			return nil
		}
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
			continue
		}
		for msg := range batch.Messages() {
			h.handle(msg)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			if fatal(err) && !(f.cfg.RideOut && passing(err)) {
				return f.conn.Explain("fetch", err)
			}
			if !isTimeout(err) {
				count(&env.Rec.Events, err)
			}
		}
		if h.finished.Load() || isClosed(h.doneCh()) {
			return nil
		}
		now := time.Now()
		if n := h.progress(); n != last {
			last, lastChange, lastProgress, armed = n, now, now, true
		} else if armed && now.Sub(lastChange) >= idle {
			if !h.rideOn(ctx, now.Sub(lastProgress)) {
				return bench.ErrIdle
			}
			lastChange = now
		}
	}
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

package js

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// DefaultAckTimeout bounds each publish acknowledgement, fetch and double ack.
const DefaultAckTimeout = 5 * time.Second

// dial opens the client's connection and a JetStream context on it.
func dial(ctx context.Context, env *bench.Env, opts ...jetstream.JetStreamOpt) (*bench.Conn, jetstream.JetStream, error) {
	c, err := env.Dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(c.Conn, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("jetstream: %w", err)
	}
	return c, js, nil
}

// payload is a message body of size bytes with a readable filler after the stamp.
func payload(size int) []byte {
	b := make([]byte, size)
	for i := stamp.Size; i < len(b); i++ {
		b[i] = byte('a' + i%26)
	}
	return b
}

// subjectsFor is what a multi-subject publisher cycles through: SUBJECT.0 ... SUBJECT.(n-1),
// built once so the hot loop formats nothing.
func subjectsFor(subject string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = subject + "." + strconv.Itoa(i)
	}
	return out
}

// stopFlag turns a context into a flag the hot loop polls for the price of a load.
func stopFlag(ctx context.Context) (*atomic.Bool, func() bool) {
	var stopped atomic.Bool
	stop := context.AfterFunc(ctx, func() { stopped.Store(true) })
	return &stopped, stop
}

// sleepCtx sleeps d unless ctx ends first, reusing t.
func sleepCtx(ctx context.Context, t *time.Timer, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t.Reset(d)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		if !t.Stop() {
			<-t.C
		}
		return ctx.Err()
	}
}

func newStoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// connErr explains an operation's error, preferring why the connection was lost.
func connErr(c *bench.Conn, op string, err error) error {
	if lost := c.Err(); lost != nil {
		return fmt.Errorf("%s: %w", op, lost)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// isTimeout tells a timeout (counted, the run goes on) from other errors.
func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, jetstream.ErrAsyncPublishTimeout)
}

// count files err under the client's events: timeouts apart from other errors.
func count(ev *record.Events, err error) {
	if isTimeout(err) {
		ev.Timeouts.Add(1)
		return
	}
	ev.Errors.Add(1)
}

// fatal reports errors after which a client cannot go on: the stream or the connection is gone.
func fatal(err error) bool {
	return errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, jetstream.ErrStreamNotFound) ||
		errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted)
}

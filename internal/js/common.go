package js

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/record"
)

// DefaultAckTimeout bounds each publish acknowledgement, fetch and double ack.
const DefaultAckTimeout = 5 * time.Second

// dial opens the client's connection and a JetStream context on it.
func dial(ctx context.Context, env *harness.Env, opts ...jetstream.JetStreamOpt) (*harness.Conn, jetstream.JetStream, error) {
	c, err := env.Dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	js, err := c.JS.New(c.Conn, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("jetstream: %w", err)
	}
	return c, js, nil
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

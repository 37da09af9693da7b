package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/stamp"
)

// PublisherIDs hands out the publisher ids written into stamps. The random base keeps two
// natsperf processes publishing to one subscriber apart (1 in 2048 chance of a clash).
type PublisherIDs uint32

// NewPublisherIDs draws a random base.
func NewPublisherIDs() PublisherIDs { return PublisherIDs(rand.Uint32N(2048) << 12) }

// For returns the id of client index (0-based).
func (p PublisherIDs) For(index int) uint32 {
	id := (uint32(p) + uint32(index) + 1) & stamp.MaxPublisher
	if id == 0 {
		id = 1
	}
	return id
}

// stopFlag turns a context into a flag the hot loop can poll for the price of a load.
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

// subjectsFor returns the subjects a multi-subject publisher cycles through: SUBJECT.0 ...
// SUBJECT.(n-1), built once so the hot loop does not format strings.
func subjectsFor(subject string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = subject + "." + strconv.Itoa(i)
	}
	return out
}

// wildcardFor is what a multi-subject receiver subscribes to.
func wildcardFor(subject string) string {
	if strings.HasSuffix(subject, ">") {
		return subject
	}
	return subject + ".>"
}

// connErr explains a publish or request error, preferring why the connection was lost.
func connErr(c *bench.Conn, op string, err error) error {
	if lost := c.Err(); lost != nil {
		return fmt.Errorf("%s: %w", op, lost)
	}
	if errors.Is(err, nats.ErrReconnectBufExceeded) {
		return fmt.Errorf("%s: connection lost and the reconnect buffer is full: %w", op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

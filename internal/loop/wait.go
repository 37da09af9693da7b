package loop

import (
	"context"
	"runtime"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

// Thresholds of Toward. Go's timers wake a sleeper up to about a millisecond late on Linux
// (the netpoller's epoll timeout is in milliseconds), and at a fixed rate every late wake-up
// is charged to the messages then sent: the tool's own lateness would show as latency.
const (
	coarseAbove = 2 * time.Millisecond    // longer waits sleep on a timer, stopping this early
	coarseEarly = 1500 * time.Microsecond // how early the timer stops, for the fine wait to finish
	spinBelow   = 60 * time.Microsecond   // shorter waits yield instead of sleeping (~ timer slack)
)

// Toward waits towards a send that is d away without overshooting it by much: long waits on
// a timer (interruptible), short ones with a precise sleep that lands about spinBelow early,
// the last stretch by yielding. The caller re-reads the clock and calls again until due.
func Toward(ctx context.Context, t *time.Timer, d time.Duration) error {
	switch {
	case d > coarseAbove:
		return Sleep(ctx, t, d-coarseEarly)
	case d > spinBelow:
		preciseSleep(d - spinBelow)
	default:
		runtime.Gosched()
	}
	return ctx.Err()
}

// Until waits until clk reaches at (Clock nanoseconds), with Toward, and returns the clock
// reading it ended on: the actual send time of a message intended for at.
func Until(ctx context.Context, t *time.Timer, clk record.Clock, at int64) (int64, error) {
	now := clk.Now()
	for wait := time.Duration(at - now); wait > 0; wait = time.Duration(at - now) {
		if err := Toward(ctx, t, wait); err != nil {
			return now, err
		}
		now = clk.Now()
	}
	return now, nil
}

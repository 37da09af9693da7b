package core

import (
	"context"
	"runtime"
	"time"
)

// Thresholds of pacedWait. Go's timers wake a sleeper up to about a millisecond late on Linux
// (the netpoller's epoll timeout is in milliseconds), and at a fixed rate every late wake-up
// is charged to the messages then sent: the tool's own lateness would show as latency.
const (
	coarseAbove = 2 * time.Millisecond    // longer waits sleep on a timer, stopping this early
	coarseEarly = 1500 * time.Microsecond // how early the timer stops, for the fine wait to finish
	spinBelow   = 60 * time.Microsecond   // shorter waits yield instead of sleeping (~ timer slack)
)

// pacedWait waits towards a send that is d away without overshooting it by much: long waits on
// a timer (interruptible), short ones with a precise sleep that lands about spinBelow early,
// the last stretch by yielding. The caller re-reads the clock and calls again until due.
func pacedWait(ctx context.Context, t *time.Timer, d time.Duration) error {
	switch {
	case d > coarseAbove:
		return sleepCtx(ctx, t, d-coarseEarly)
	case d > spinBelow:
		preciseSleep(d - spinBelow)
	default:
		runtime.Gosched()
	}
	return ctx.Err()
}

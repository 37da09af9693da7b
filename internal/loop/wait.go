package loop

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

// Thresholds of the fixed-rate wait. Go's timers wake a sleeper up to about a millisecond
// late on Linux (the netpoller's epoll timeout is in milliseconds), and at a fixed rate every
// late wake-up is charged to the messages then sent: the tool's own lateness would show as
// latency. So the last stretch sleeps with nanosleep and a timer slack of a microsecond, and
// only the last few microseconds spin. What costs CPU is the number of wake-ups (a few
// microseconds each) and the spin, so both are bounded:
const (
	coarseAbove = 2 * time.Millisecond    // longer waits sleep on a Go timer, stopping this early
	coarseEarly = 1500 * time.Microsecond // how early the timer stops, for the fine wait to finish
	spinBelow   = 10 * time.Microsecond   // a precise wake-up stops this early and yields the rest
	// MinGap is the least time between two wake-ups of one sender: messages due sooner after
	// the last wake-up are sent together at the next one, late by less than MinGap (their
	// latency from the intended send time shows it). It caps a sender at 4,000 wake-ups a
	// second, about 1-2% of a core, whatever its rate.
	MinGap = 250 * time.Microsecond
	// preciseSenders is how many senders of the process may spin their last microseconds at
	// once: beyond it, many paced clients would each spin (1,000 publishers at 10 msgs/s spin
	// 10,000 times a second); they sleep the whole wait instead and land within the kernel's
	// wake-up latency (tens of microseconds).
	preciseSenders = 4
)

// spinning counts the senders of the process that may spin (see preciseSenders).
var spinning atomic.Int32

// toward waits towards a send that is d away without overshooting it by much: long waits on
// a timer (interruptible), short ones with a precise sleep that lands about spinBelow early
// (or on time, without spin), the last stretch by yielding. The caller re-reads the clock
// and calls again until due.
func toward(ctx context.Context, t *time.Timer, d time.Duration, spin bool) error {
	switch {
	case d > coarseAbove:
		return Sleep(ctx, t, d-coarseEarly)
	case !spin:
		preciseSleep(d)
	case d > spinBelow:
		preciseSleep(d - spinBelow)
	default:
		runtime.Gosched()
	}
	return ctx.Err()
}

// Waiter is one fixed-rate sender's way of waiting for its next send: precisely (a spin of
// at most spinBelow) when its sends are MinGap or more apart and few senders spin, and in
// batches of what fell due otherwise, so pacing costs a bounded number of wake-ups per second
// instead of a spinning core. Close it when the sender is done.
type Waiter struct {
	clk   record.Clock
	t     *time.Timer
	last  int64 // when the previous wait ended, 0 before the first
	spin  bool
	close func()
}

// NewWaiter returns a Waiter reading clk.
func NewWaiter(clk record.Clock) *Waiter {
	w := &Waiter{clk: clk, t: NewTimer(), close: func() {}}
	if spinning.Add(1) <= preciseSenders {
		w.spin = true
	}
	var once atomic.Bool
	w.close = func() {
		if once.CompareAndSwap(false, true) {
			spinning.Add(-1)
		}
	}
	return w
}

// Close releases the Waiter's place among the senders that may spin.
func (w *Waiter) Close() { w.close() }

// Until waits for a send intended at at (Clock nanoseconds) and returns the clock reading it
// ended on, never before at. A send already due returns at once. Within MinGap of its previous
// wake-up it waits until MinGap has passed instead, so the sends due by then go together.
func (w *Waiter) Until(ctx context.Context, at int64) (int64, error) {
	now := w.clk.Now()
	if now >= at {
		return now, ctx.Err() // due already: a one-at-a-time sender behind its slots goes at once
	}
	target, spin := at, true
	if w.last != 0 && at-w.last < int64(MinGap) {
		target, spin = w.last+int64(MinGap), false // late by design: no need to spin for it
	}
	if !w.spin {
		// One of many: the process's pacer wakes it with the others due at the same tick.
		tick := (target + int64(MinGap) - 1) / int64(MinGap) * int64(MinGap)
		if err := ticks.wait(ctx, w.clk.Now, tick); err != nil {
			return w.clk.Now(), err
		}
		now = w.clk.Now()
		for now < target { // the tick is never early; a clock read on the edge may be
			runtime.Gosched()
			now = w.clk.Now()
		}
		w.last = now
		return now, nil
	}
	for wait := time.Duration(target - now); wait > 0; wait = time.Duration(target - now) {
		if err := toward(ctx, w.t, wait, spin); err != nil {
			return now, err
		}
		now = w.clk.Now()
	}
	w.last = now
	return now, nil
}

package idle

import (
	"context"
	"time"

	"github.com/natsperf/natsperf/internal/harness"
)

// DefaultTimeout is the receivers' idle timeout when none is given (--idle-timeout's default).
const DefaultTimeout = 3 * time.Second

// Never is a timeout that never ends a receiver: a service serves until told otherwise.
const Never = time.Duration(-1)

// Timeout is d, or DefaultTimeout for 0; negative stays negative (Never).
func Timeout(d time.Duration) time.Duration {
	if d == 0 {
		return DefaultTimeout
	}
	return d
}

// Watch tells when a receiver has gone idle. Times are record.Clock readings (nanoseconds).
// It is used from one goroutine.
type Watch struct {
	timeout time.Duration
	armed   bool  // the quiet clock counts: messages started, producers done, or from the start
	last    int64 // progress last seen
	quiet   int64 // since when nothing moved (or the connection came back, or the producers ended)
	moved   int64 // when progress last moved
}

// NewWatch starts a watch at now with the receiver's progress so far. With fromStart (the
// messages were stored before the run) the quiet clock runs from now; otherwise from the
// first message, or from Arm.
func NewWatch(timeout time.Duration, fromStart bool, progress, now int64) *Watch {
	return &Watch{timeout: Timeout(timeout), armed: fromStart, last: progress, quiet: now, moved: now}
}

// Timeout is the watch's idle timeout (Never: negative).
func (w *Watch) Timeout() time.Duration { return w.timeout }

// Interval is how often a receiver polls its watch: an eighth of the timeout, between 5ms and
// 100ms, so it ends at most that late and an idle one costs little.
func (w *Watch) Interval() time.Duration {
	if w.timeout < 0 {
		return 100 * time.Millisecond
	}
	return min(max(w.timeout/8, 5*time.Millisecond), 100*time.Millisecond)
}

// Arm starts the quiet clock at now (the producers are done: what was coming has been sent).
// A clock already running from the last message keeps running: a fetcher learns that the
// producers are done only between fetches, and restarting the clock then doubled its wait.
func (w *Watch) Arm(now int64) {
	if !w.armed {
		w.armed, w.quiet = true, now
	}
}

// Saw notes progress observed at time at (a fetcher knows when its last message came).
func (w *Watch) Saw(progress, at int64) {
	if progress != w.last {
		w.last, w.armed = progress, true
		w.quiet, w.moved = max(w.quiet, at), max(w.moved, at)
	}
}

// Idle reports whether the receiver is idle at now, given its progress and whether its
// connection is up. A connection that is down is not quiet, it is gone: the clock restarts
// when it is back (a connection given up is the receiver's failure, not idleness).
func (w *Watch) Idle(now, progress int64, connected bool) bool {
	if progress != w.last {
		w.last, w.armed, w.quiet, w.moved = progress, true, now, now
		return false
	}
	if !connected {
		w.quiet = now
		return false
	}
	return w.armed && w.timeout >= 0 && time.Duration(now-w.quiet) >= w.timeout
}

// Restart gives the receiver a full timeout again from now (it rides on).
func (w *Watch) Restart(now int64) { w.quiet = now }

// Quiet is how long nothing has arrived at now.
func (w *Watch) Quiet(now int64) time.Duration { return time.Duration(now - w.moved) }

// Left is how much of the timeout is left at now: the whole timeout while not armed.
func (w *Watch) Left(now int64) time.Duration {
	if !w.armed || w.timeout < 0 {
		return max(w.timeout, 0)
	}
	return max(w.timeout-time.Duration(now-w.quiet), 0)
}

// Wait is how a receiver fed by a callback ends.
type Wait struct {
	Timeout   time.Duration // 0: DefaultTimeout; Never (negative): never idle
	FromStart bool          // the quiet clock runs from the start (messages already stored)
	Done      <-chan struct{}
	// Fail, when set, delivers an error that ends the receiver.
	Fail <-chan error
	// Progress is what the watch follows (default env.Rec.Progress).
	Progress func() int64
	// Finished, when set, ends the receiver once true (a queue group's total is in).
	Finished func() bool
	// RideOn, when set, is asked once the receiver is idle, with how long nothing came: true
	// goes on for another timeout (a consumer riding out a fault).
	RideOn func(ctx context.Context, quiet time.Duration) bool
}

// Run waits until Done closes (nil), Fail sends or the connection is given up (that error),
// ctx ends (ctx.Err()) or the receiver is idle (harness.ErrIdle).
func (w Wait) Run(ctx context.Context, env *harness.Env, c *harness.Conn) error {
	progress := w.Progress
	if progress == nil {
		progress = env.Rec.Progress
	}
	clk := env.Clock
	watch := NewWatch(w.Timeout, w.FromStart, progress(), clk.Now())
	tick := time.NewTicker(watch.Interval())
	defer tick.Stop()
	producers := env.ProducersDone
	for {
		select {
		case <-w.Done:
			return nil
		case err := <-w.Fail:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Lost():
			return c.Err()
		case <-producers:
			producers = nil
			watch.Arm(clk.Now())
		case <-tick.C:
			if w.Finished != nil && w.Finished() {
				return nil
			}
			now := clk.Now()
			if !watch.Idle(now, progress(), c.IsConnected()) {
				continue
			}
			if w.RideOn != nil && w.RideOn(ctx, watch.Quiet(now)) {
				watch.Restart(clk.Now())
				continue
			}
			return harness.ErrIdle
		}
	}
}

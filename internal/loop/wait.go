package loop

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

// Thresholds of the fixed-rate wait. Go's timers wake a sleeper up to about a millisecond
// late on Linux (the netpoller's epoll timeout is in milliseconds), and at a fixed rate every
// late wake-up is charged to the messages then sent: the tool's own lateness would show as
// latency. So the last stretch sleeps with nanosleep and a timer slack of a microsecond, and
// only the last few microseconds spin. What costs CPU is the number of wake-ups (tens of
// microseconds each on a busy VM: the sleep, the write it ends in, the thread nats.go's
// flusher wakes) and the spin, so both are bounded:
const (
	coarseAbove = 2 * time.Millisecond    // longer waits sleep on a Go timer, stopping this early
	coarseEarly = 1500 * time.Microsecond // how early the timer stops, for the fine wait to finish
	spinBelow   = 10 * time.Microsecond   // a precise wake-up stops this early and yields the rest
	// preciseSenders is how many paced senders a process may have for each to sleep on its
	// own (and spin its last microseconds), and fewer than its Go processors (Waiter.own).
	// With more, they all wait on the process's one pacer (ticker), which wakes once for
	// every sender then due: a thousand paced clients cost the wake-ups of one, not a
	// thread's sleep each.
	preciseSenders = 4
)

// ownSenders is how many paced senders may each sleep on their own with gomaxprocs Go
// processors: at most preciseSenders, and fewer than the processors, for a thread asleep in
// nanosleep keeps its P (preciseSleep). Were every P held so, the goroutines that read the
// sockets (acks, deliveries) would wait for the runtime's monitor to poll the network: 5ms
// on average, 10ms at worst, seen with 2 paced publishers on 2 CPUs. With one P, none may.
func ownSenders(gomaxprocs int) int32 { return int32(min(preciseSenders, gomaxprocs-1)) }

// DefaultPrecision is the coarsest pacing precision natsperf chooses when none is set
// (--pace-precision; see ChoosePrecision), and its choice at up to 10,000 msgs/s per wake-up:
// one wake-up per millisecond at most, what a bare nats.go loop sleeping on Go's timers gets
// (the floor tools/perfcompare measures), at about its CPU. docs/performance.md has the trade.
const DefaultPrecision = time.Millisecond

// MinChosenPrecision is the finest pacing precision natsperf chooses (ChoosePrecision): at
// most 5,000 wake-ups a second per sender or pacer, however fast the rate. Above 50,000
// msgs/s per wake-up a wake-up then sends more than burst: at 100,000 msgs/s, 100us cost 4.5x
// a bare loop's CPU against 2.8x at 200us (1.7x at 1ms), for a P50 10-30us lower, both within
// the nats.go reference's 1.5x + 50us (docs/performance.md, "Ninth round").
const MinChosenPrecision = 200 * time.Microsecond

// burst is how many messages one wake-up may send back to back at the chosen precision. A
// receiver queues a burst: at 50,000 msgs/s, the 50 messages a millisecond's wake-up sent
// together made the P50 150-600us against 55-140us for a nats.go loop sending each on time;
// 10 keep it within the reference's, and every shape up to 10,000 msgs/s per wake-up (all
// those the CPU floor is measured at) at DefaultPrecision; MinChosenPrecision bounds it.
const burst = 10

// ChoosePrecision is the pacing precision of a run with none set (--pace-precision), from the
// peak rates (messages a second, each) of the process's paced senders: the time in which burst
// messages fall due for what one wake-up serves, between MinChosenPrecision and
// DefaultPrecision. A sender that sleeps on its own serves its own rate; the process's pacer
// wakes once for all the senders then due (NewWaiter says which wait on it), so it serves
// their summed rate. harness.Env.PacePrecision carries the result to each Waiter.
func ChoosePrecision(rates []float64) time.Duration {
	return choosePrecision(rates, runtime.GOMAXPROCS(0))
}

// choosePrecision is ChoosePrecision with gomaxprocs Go processors. Which senders get a place
// of their own is decided as they start, so it assumes the worst of both: a sender of its own
// at the fastest rate, and the fastest of the others on the pacer. The choice is never
// coarser than what the run turns out to need.
func choosePrecision(rates []float64, gomaxprocs int) time.Duration {
	var paced []float64
	for _, r := range rates {
		if r > 0 {
			paced = append(paced, r)
		}
	}
	slices.SortFunc(paced, func(a, b float64) int { return cmp.Compare(b, a) })
	own := 0 // senders that sleep on their own (NewWaiter, Waiter.shared)
	if len(paced) <= preciseSenders {
		own = max(0, min(len(paced), int(ownSenders(gomaxprocs))))
	}
	var serves float64 // the most messages a second one wake-up serves
	if own > 0 {
		serves = paced[0]
	}
	var sum float64
	for _, r := range paced[:len(paced)-own] {
		sum += r
	}
	return precisionFor(max(serves, sum))
}

// precisionFor is the precision at which one wake-up serving rate messages a second sends
// about burst of them.
func precisionFor(rate float64) time.Duration {
	if rate <= 0 {
		return DefaultPrecision
	}
	d := time.Duration(burst / rate * float64(time.Second))
	return min(max(d, MinChosenPrecision), DefaultPrecision)
}

// senders counts the process's live paced senders (see preciseSenders).
var senders atomic.Int32

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

// Waiter is one fixed-rate sender's way of waiting for its next send: on its own and
// precisely (a spin of at most spinBelow) while the process has few paced senders, through
// the process's pacer otherwise, and in batches of what fell due when its sends are closer
// than the precision, so pacing costs a bounded number of wake-ups per second instead of a
// spinning core. Close it when the sender is done.
type Waiter struct {
	clk record.Clock
	// precision is the least time between two wake-ups of the sender (and of the process's
	// pacer when it is the next due there): messages due sooner after the previous wake-up
	// are sent together at the next one, late by less than the precision (their send
	// lateness and their latency from the intended send time show it); a sender whose
	// messages are further apart sleeps to each one's exact time. It bounds the wake-ups, and
	// so the CPU, whatever the rate: at most 1/precision a second. It is the run's
	// (--pace-precision, harness.Env.PacePrecision), given to each Waiter as a value.
	precision int64
	t         *time.Timer
	last      int64 // the previous wake-up's target, 0 before the first
	planned   int64 // the planned wake-up of the wait that ended last (see Planned)
	owner     bool  // holds one of the process's places to sleep on its own (ownSenders)
	close     func()

	// Kept by the ticker while the Waiter waits on it.
	due   int64
	index int           // in the ticker's heap, -1 when not there
	wake  chan struct{} // the ticker's signal, buffered

	// While the ticker steps the sender (Run): its step, the last step's outcome, whether its
	// context ended, and whether a step of it blocked the ticker (it then steps on its own).
	step    Step
	out     Stepped
	outErr  error
	cancel  bool
	stalled bool
}

// handBack ends the ticker's stepping of w with the last step's outcome.
func (w *Waiter) handBack(out Stepped, err error) {
	w.out, w.outErr = out, err
	w.wake <- struct{}{}
}

// owners counts the Waiters holding one of the process's places to sleep on their own.
var owners atomic.Int32

// NewWaiter returns a Waiter reading clk and pacing at precision (0 or less:
// DefaultPrecision; see Waiter.precision). It sleeps on its own when one of the process's
// ownSenders places is free (and the process has at most preciseSenders paced senders);
// otherwise it waits on the process's pacer. Two senders on 2 processors: one sleeps on its
// own, the other on the pacer, each to its exact times, where both on the pacer would go
// together once per precision (a burst the receivers queue).
func NewWaiter(clk record.Clock, precision time.Duration) *Waiter {
	if precision <= 0 {
		precision = DefaultPrecision
	}
	w := &Waiter{clk: clk, precision: int64(precision), t: NewTimer(), index: -1, wake: make(chan struct{}, 1)}
	senders.Add(1)
	if owners.Add(1) <= ownSenders(runtime.GOMAXPROCS(0)) {
		w.owner = true
	} else {
		owners.Add(-1)
	}
	var once atomic.Bool
	w.close = func() {
		if once.CompareAndSwap(false, true) {
			senders.Add(-1)
			if w.owner {
				owners.Add(-1)
			}
		}
	}
	return w
}

// Close releases the Waiter's place among the process's paced senders.
func (w *Waiter) Close() { w.close() }

// shared reports whether the Waiter waits on the process's pacer: it holds no place to sleep
// on its own, or the process has more paced senders than preciseSenders (then all do, so a
// thousand senders cost the pacer's wake-ups, not a thread's sleep each).
func (w *Waiter) shared() bool { return !w.owner || senders.Load() > preciseSenders }

// Planned is when the wait that ended last (Until, or the pacer's wake-up of a step) was
// planned to end: the slot it waited for, or, for a slot within the precision of an earlier
// wake-up, the wake-up the pacing precision put it in. The intended send time of a message
// sent then is the later of its slot and Planned (Intended): the grouping of sends into one
// wake-up is natsperf's choice to save CPU, not the system's latency, so it shows in the
// send lateness (measured from the slot) and not in the latency; a wake-up later than
// planned (a stall) counts in full.
func (w *Waiter) Planned() int64 { return w.planned }

// Intended is the intended send time of a message whose slot is slot, sent after the wait
// that ended last: the later of the slot and the planned wake-up (see Planned).
func (w *Waiter) Intended(slot int64) int64 { return max(slot, w.planned) }

// Until waits for a send intended at at (Clock nanoseconds) and returns the clock reading it
// ended on, never before at. A send already due returns at once. Within the precision of its
// previous wake-up it waits until the precision has passed instead, so the sends due by then
// go together.
func (w *Waiter) Until(ctx context.Context, at int64) (int64, error) {
	now := w.clk.Now()
	if now >= at {
		// Due already: a one-at-a-time sender behind its slots goes at once, and one sending
		// what its last wake-up grouped goes in that wake-up (planned is left as it was).
		return now, ctx.Err()
	}
	target, spin := w.plan(at)
	w.planned = target
	if w.shared() {
		// One of many: the process's pacer wakes it with the others then due (and sets
		// planned to that wake-up's, when earlier than target).
		if err := ticks.wait(ctx, w, target); err != nil {
			return w.clk.Now(), err
		}
		now = w.clk.Now()
		for now < target { // the pacer is never early; a clock read on the edge may be
			runtime.Gosched()
			now = w.clk.Now()
		}
		return now, nil
	}
	for wait := time.Duration(target - now); wait > 0; wait = time.Duration(target - now) {
		if err := toward(ctx, w.t, wait, spin); err != nil {
			return now, err
		}
		now = w.clk.Now()
	}
	return now, nil
}

// plan is when the wait for a send intended at at ends: at itself (exact: worth a spin), or,
// within the precision of the previous wake-up, the precision after it (late by design).
// The spacing counts from the previous wake-up's target, not from when it ended: sends the
// precision apart each go at their own time instead of inheriting the previous one's
// lateness, which would otherwise add up until it reached the precision.
func (w *Waiter) plan(at int64) (target int64, exact bool) {
	target, exact = at, true
	if gap := w.precision; w.last != 0 && at-w.last < gap {
		target, exact = w.last+gap, false
	}
	w.last = target
	return target, exact
}

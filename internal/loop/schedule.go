package loop

import (
	"context"
	"time"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/record"
)

// Share is how many operations a client performs: its share of --msgs; or, at a fixed rate
// with only a duration, its part of the schedule's slots in the duration. bounded is false for
// a client that runs until its duration ends or it is stopped. A client whose share is 0 does
// nothing.
func Share(env *harness.Env, rate float64, shape pace.Shape, d time.Duration) (n uint64, bounded bool, pacer *pace.Pacer) {
	pacer = pace.NewPacer(rate, shape, env.Count, env.Index)
	n, bounded = uint64(env.Share), env.Bounded
	if rate > 0 && d > 0 {
		// Both limits hold: the schedule ends with the duration even when --msgs is larger.
		if t := pacer.Total(d); !bounded || t < n {
			n = t
		}
		bounded = true
	}
	return n, bounded, pacer
}

// Schedule hands a one-at-a-time sender (requests, sync publishes, gets, KV operations) its
// operations: back to back until its share or duration is done, or on the fixed-rate schedule
// with each operation's intended send time, so a slow reply is charged to the ones behind it.
type Schedule struct {
	clk      record.Clock
	rec      *record.Recorder
	start    int64
	pacer    *pace.Pacer
	paced    bool
	n        uint64
	bounded  bool
	deadline int64
	timer    *time.Timer
	waiter   *Waiter // paced only
	i        uint64
	cut      bool // the duration ended before the schedule was done
}

// NewSchedule plans env's client at rate shaped by shape (0: back to back) for d (0: until its
// share is done).
func NewSchedule(env *harness.Env, rate float64, shape pace.Shape, d time.Duration) *Schedule {
	s := &Schedule{clk: env.Clock, rec: env.Rec, start: env.Start, paced: rate > 0, timer: NewTimer()}
	s.n, s.bounded, s.pacer = Share(env, rate, shape, d)
	if s.paced {
		s.waiter = NewWaiter(env.Clock, env.PacePrecision)
	}
	if d > 0 {
		s.deadline = env.Start + int64(d)
		if s.paced {
			s.deadline = Deadline(env.Start, d)
		}
	}
	return s
}

// Begin is when the client's measured work begins: its first slot at a fixed rate (so a late
// first operation is charged), now otherwise.
func (s *Schedule) Begin() int64 {
	if s.paced {
		return s.start + int64(s.pacer.Intended(0))
	}
	return s.clk.Now()
}

// End is where a fixed-rate schedule ends: the slot after its last operation, so N
// operations at R per second measure N/R seconds, not (N-1)/R; for one the duration cut short
// (a sender held up by slow or missing replies), the end of the whole schedule, so its rate is
// what it did over the time it was asked to run. 0 otherwise (nothing to move).
func (s *Schedule) End() int64 {
	if !s.paced || !s.bounded || (s.i < s.n && !s.cut) {
		return 0
	}
	return s.start + int64(s.pacer.After(s.n))
}

// Paced reports whether operations follow the fixed-rate schedule.
func (s *Schedule) Paced() bool { return s.paced }

// Next waits for the next operation's turn. It returns the operation's number (0-based), its
// intended send time (its slot, or the pacer's planned wake-up it was grouped into: see
// Waiter.Planned) and actual send time (equal when not paced), and ok false once the client
// is done. The send lateness it records is from the slot.
func (s *Schedule) Next(ctx context.Context) (i uint64, intended, sent int64, ok bool, err error) {
	if s.bounded && s.i >= s.n {
		return 0, 0, 0, false, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, 0, false, err
	}
	sent = s.clk.Now()
	if Past(s.deadline, sent) {
		s.cut = true
		return 0, 0, 0, false, nil
	}
	intended = sent
	if s.paced {
		intended = s.start + int64(s.pacer.Intended(s.i))
		if sent, err = s.waiter.Until(ctx, intended); err != nil {
			return 0, 0, 0, false, err
		}
		if Past(s.deadline, sent) {
			s.cut = true
			return 0, 0, 0, false, nil
		}
		if s.rec != nil {
			s.rec.Late(intended, sent)
		}
		intended = s.waiter.Intended(intended) // the grouping into a wake-up is not latency
	}
	i = s.i
	s.i++
	return i, intended, sent, true, nil
}

// Close releases what a paced schedule holds (its place among the senders that may spin).
func (s *Schedule) Close() {
	if s.waiter != nil {
		s.waiter.Close()
	}
}

// Pause sleeps d between operations (--sleep), unless ctx ends first.
func (s *Schedule) Pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	return Sleep(ctx, s.timer, d)
}

// Deadline is when a client that started at start (Clock nanoseconds) and runs for d stops
// sending, whatever its rate: --duration is a time limit, never rate x duration messages for
// a sender that cannot keep up. A sender a moment late at its end (a timer waking late on a
// busy host: 250ms behind a 1s schedule was seen with eight test processes on two cores)
// still sends its last slots within a grace of a quarter of d, at most 250ms. 0 when d is 0
// (no limit).
func Deadline(start int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return start + int64(d) + int64(min(d/4, 250*time.Millisecond))
}

// Past reports whether now is at or beyond deadline (0: none).
func Past(deadline, now int64) bool { return deadline != 0 && now >= deadline }

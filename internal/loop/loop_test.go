package loop

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/record"
)

func TestWaiterLandsOnTimeNotEarly(t *testing.T) {
	clk := record.NewClock()
	w := NewWaiter(clk, time.Millisecond)
	defer w.Close()
	for _, ahead := range []time.Duration{0, 30 * time.Microsecond, 500 * time.Microsecond, 5 * time.Millisecond} {
		at := clk.Now() + int64(ahead)
		now, err := w.Until(context.Background(), at)
		if err != nil || now < at {
			t.Fatalf("Until(+%v) ended at %d, %dns early (err %v)", ahead, now, at-now, err)
		}
		// Never early; late by the precision at most, plus what a busy host's scheduler adds
		// (22ms was seen at load 22 on 2 cores): a bound that catches a wait gone wrong.
		if late := time.Duration(now - at); late > 200*time.Millisecond+DefaultPrecision {
			t.Errorf("Until(+%v) overshot by %v", ahead, late)
		}
	}
}

// TestWaiterBatchesCloseSends: sends due less than the precision after the last wake-up wait
// for the precision, so a fast schedule costs at most one wake-up per precision.
func TestWaiterBatchesCloseSends(t *testing.T) {
	clk := record.NewClock()
	w := NewWaiter(clk, time.Millisecond)
	defer w.Close()
	at := clk.Now() + int64(time.Millisecond)
	first, err := w.Until(context.Background(), at)
	if err != nil {
		t.Fatal(err)
	}
	next, err := w.Until(context.Background(), first+int64(10*time.Microsecond))
	if err != nil {
		t.Fatal(err)
	}
	if next-at < int64(DefaultPrecision) {
		t.Fatalf("woke %v after the previous wake-up's time, want at least %v", time.Duration(next-at), DefaultPrecision)
	}
}

// TestWaiterPlanKeepsExactTimes: the precision counts from the previous wake-up's target,
// so sends exactly the precision apart (or more) each keep their own time, however late the
// previous wake-up ended; closer ones wait for the precision.
func TestWaiterPlanKeepsExactTimes(t *testing.T) {
	w := NewWaiter(record.NewClock(), DefaultPrecision)
	defer w.Close()
	gap := int64(DefaultPrecision)
	const start = int64(1_000_000_000)
	for i := int64(0); i < 5; i++ {
		at := start + i*gap
		if got, exact := w.plan(at); got != at || !exact {
			t.Fatalf("send %d at +%v: planned for +%v (exact %v), want its own time", i, time.Duration(at-start), time.Duration(got-start), exact)
		}
	}
	last := start + 4*gap
	if got, exact := w.plan(last + gap/3); got != last+gap || exact {
		t.Fatalf("a send a third of the precision after the previous one planned for +%v (exact %v), want +%v", time.Duration(got-last), exact, time.Duration(gap))
	}
}

// TestTickerWakesAtMostOncePerPrecision: with more paced senders than may sleep on their own,
// the process's pacer wakes them; sends due 10us apart across senders cost at most one of
// its wake-ups per precision (what a thousand clients at a low rate each need), and every
// sender still goes, never early.
func TestTickerWakesAtMostOncePerPrecision(t *testing.T) {
	clk := record.NewClock()
	const n, each = 20, 10
	ws := make([]*Waiter, n)
	for i := range ws {
		ws[i] = NewWaiter(clk, time.Millisecond)
		defer ws[i].Close()
	}
	before := tickerFires.Load()
	start := clk.Now() + int64(5*time.Millisecond)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < each; k++ {
				at := start + int64(k*n+i)*int64(10*time.Microsecond) // all senders together: one send per 10us
				now, err := w.Until(context.Background(), at)
				if err != nil || now < at {
					errs <- fmt.Errorf("sender %d send %d: ended %dns early (err %v)", i, k, at-now, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// n*each sends over 2ms: at most 3 wake-ups a millisecond apart (plus one for a clock
	// read on the edge), where one per sender's send would be 200.
	span := time.Duration(n*each) * 10 * time.Microsecond
	if fires, most := tickerFires.Load()-before, int64(span/DefaultPrecision)+2; fires > most {
		t.Fatalf("the pacer woke %d times for %d sends over %v, want at most %d", fires, n*each, span, most)
	}
}

func TestWaiterEndsWithTheContext(t *testing.T) {
	clk := record.NewClock()
	w := NewWaiter(clk, time.Millisecond)
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := w.Until(ctx, clk.Now()+int64(time.Hour)); err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("Until returned %v after %v", err, time.Since(start))
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	err := Sleep(ctx, NewTimer(), time.Hour)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("Sleep returned %v after %v", err, time.Since(start))
	}
	stopped, release := StopFlag(ctx)
	defer release()
	deadline := time.Now().Add(5 * time.Second) // the flag is set by a goroutine of its own
	for !stopped.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !stopped.Load() {
		t.Fatal("stop flag not set for a cancelled context")
	}
}

func TestSubjects(t *testing.T) {
	if got := Subjects("foo", 3); !slices.Equal(got, []string{"foo.0", "foo.1", "foo.2"}) {
		t.Errorf("Subjects = %v", got)
	}
	for in, want := range map[string]string{"foo": "foo.>", "foo.>": "foo.>"} {
		if got := Wildcard(in); got != want {
			t.Errorf("Wildcard(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSchedule(t *testing.T) {
	clk := record.NewClock()
	env := func(share int64, bounded bool, count, index int) *harness.Env {
		return &harness.Env{Clock: clk, Start: clk.Now(), Share: share, Bounded: bounded, Count: count, Index: index}
	}
	tests := []struct {
		name     string
		env      *harness.Env
		rate     float64
		d        time.Duration
		wantOps  int
		paced    bool
		maxTaken time.Duration
	}{
		{"share of 3", env(3, true, 1, 0), 0, 0, 3, false, time.Second},
		{"share of 0 does nothing", env(0, true, 4, 3), 0, 0, 0, false, time.Second},
		{"duration bounds an open-ended client", env(0, false, 1, 0), 0, 30 * time.Millisecond, -1, false, 2 * time.Second},
		{"rate x duration split across 2 clients", env(0, false, 2, 1), 1000, 20 * time.Millisecond, 10, true, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.env.Start = clk.Now() // the duration counts from here, not from the table
			s := NewSchedule(tt.env, tt.rate, pace.Shape{}, tt.d)
			start := time.Now()
			ops, last := 0, int64(-1)
			for {
				i, intended, sent, ok, err := s.Next(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				if int(i) != ops || intended <= last || sent < intended {
					t.Fatalf("op %d: i %d, intended %d after %d, sent %d", ops, i, intended, last, sent)
				}
				if tt.paced && intended != tt.env.Start+int64(s.pacer.Intended(i)) {
					t.Fatalf("op %d not at its slot", i)
				}
				ops, last = ops+1, intended
				if ops%1024 == 0 && time.Since(start) > tt.maxTaken {
					t.Fatalf("schedule never ends: %d operations in %v", ops, time.Since(start))
				}
			}
			switch {
			case tt.wantOps < 0:
			case tt.paced && tt.d > 0:
				// --duration is a time limit: a busy machine may wake the sender too late for
				// its last slots, so the plan is exact and the operations done are bounded by it.
				if s.n != uint64(tt.wantOps) || ops < 1 || ops > tt.wantOps {
					t.Fatalf("%d operations of a plan of %d, want a plan of %d", ops, s.n, tt.wantOps)
				}
			case ops != tt.wantOps:
				t.Fatalf("%d operations, want %d", ops, tt.wantOps)
			}
			if took := time.Since(start); took > tt.maxTaken {
				t.Fatalf("took %v", took)
			}
		})
	}
}

// TestScheduleEndsAtTheDurationWhenBehind: a rate no sender reaches still ends at the
// duration, having done fewer than rate x duration operations, and its end (what its rate is
// measured over) is the duration's, not its last operation's.
func TestScheduleEndsAtTheDurationWhenBehind(t *testing.T) {
	clk := record.NewClock()
	const rate, d = 1e10, 50 * time.Millisecond // 500 million slots in 50ms
	s := NewSchedule(&harness.Env{Clock: clk, Start: clk.Now(), Count: 1}, rate, pace.Shape{}, d)
	start := time.Now()
	ops := 0
	for {
		_, _, _, ok, err := s.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		ops++
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("a %v schedule took %v (%d operations)", d, took, ops)
	}
	if ops == 0 || uint64(ops) >= s.n {
		t.Fatalf("%d operations of %d", ops, s.n)
	}
	// Its rate is over the time it was asked to run: the end is the schedule's, the duration.
	if e := time.Duration(s.End() - s.start); e < d-time.Millisecond || e > d+time.Millisecond {
		t.Fatalf("a schedule the duration cut short ends at %v, want the duration %v", e, d)
	}
}

// TestScheduleKeepsFastRates: a one-at-a-time sender at 20,000/s (one slot per 50 us, below
// MinGap) gets every slot of its duration: operations that are due go at once, several per
// wake-up, instead of one per MinGap (4,000/s).
func TestScheduleKeepsFastRates(t *testing.T) {
	clk := record.NewClock()
	const rate, d = 20000, 300 * time.Millisecond
	s := NewSchedule(&harness.Env{Clock: clk, Start: clk.Now(), Count: 1}, rate, pace.Shape{}, d)
	defer s.Close()
	n := 0
	for {
		_, intended, sent, ok, err := s.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if sent < intended {
			t.Fatalf("operation %d sent %v before its slot", n, time.Duration(intended-sent))
		}
		n++
	}
	if want := int(rate * d.Seconds()); n != want {
		t.Fatalf("%d operations in %v at %d/s, want %d", n, d, rate, want)
	}
}

// TestWaiterPrecisionIsItsOwn: each Waiter paces at the precision it was given (a run's
// --pace-precision), not at a process-wide one: two Waiters of one process, 1ms and 10ms,
// plan the same sends 2ms apart differently; 0 is the default.
func TestWaiterPrecisionIsItsOwn(t *testing.T) {
	clk := record.NewClock()
	fine, coarse, def := NewWaiter(clk, time.Millisecond), NewWaiter(clk, 10*time.Millisecond), NewWaiter(clk, 0)
	defer fine.Close()
	defer coarse.Close()
	defer def.Close()
	const start = int64(1_000_000_000)
	next := start + int64(2*time.Millisecond)
	for _, w := range []*Waiter{fine, coarse, def} {
		w.plan(start)
	}
	if got, exact := fine.plan(next); got != next || !exact {
		t.Errorf("1ms precision: a send 2ms after the previous planned for +%v, want its own time", time.Duration(got-start))
	}
	if got, _ := coarse.plan(next); got != start+int64(10*time.Millisecond) {
		t.Errorf("10ms precision: a send 2ms after the previous planned for +%v, want +10ms", time.Duration(got-start))
	}
	if def.precision != int64(DefaultPrecision) {
		t.Errorf("precision 0 paces at %v, want the default %v", time.Duration(def.precision), DefaultPrecision)
	}
}

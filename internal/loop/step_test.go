package loop

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

// onPacer reports whether the caller runs on the process's pacer goroutine (a step it makes).
func onPacer() bool {
	buf := make([]byte, 8<<10)
	return strings.Contains(string(buf[:runtime.Stack(buf, false)]), "(*ticker).steps")
}

// sender is a test sender: n sends gap apart from first, each step making the one due
// (or, with batch, reporting two).
type sender struct {
	first, gap int64
	n          int
	batch      bool
	block      func(i int) // called in step i before it returns, if set

	done, onPacer int
	early         error
	finished      int64 // the clock when its last step returned
}

func (s *sender) step(clk record.Clock) Step {
	return func(now int64) (Stepped, error) {
		at := s.first + int64(s.done)*s.gap
		if now < at && s.early == nil {
			s.early = errors.New("a step before its send time")
		}
		if onPacer() {
			s.onPacer++
		}
		if s.block != nil {
			s.block(s.done)
		}
		s.done++
		sent := 1
		if s.batch {
			sent = 2
		}
		s.finished = clk.Now()
		return Stepped{Next: s.first + int64(s.done)*s.gap, Sent: sent, Done: s.done == s.n}, nil
	}
}

// runSenders runs every sender to its end through Run, each on its own goroutine with its own
// Waiter (all counted before any starts, so the process has more than preciseSenders).
func runSenders(t *testing.T, ctx context.Context, senders []*sender) []error {
	t.Helper()
	clk := record.NewClock()
	ws := make([]*Waiter, len(senders))
	for i := range ws {
		ws[i] = NewWaiter(clk, time.Millisecond)
		defer ws[i].Close()
	}
	start := clk.Now() + int64(5*time.Millisecond)
	errs := make([]error, len(senders))
	var wg sync.WaitGroup
	for i, s := range senders {
		s.first += start
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ws[i].Run(ctx, s.first, s.step(clk))
		}()
	}
	wg.Wait()
	return errs
}

// TestPacerStepsSparseSenders: with more paced senders than may sleep on their own, the
// process's pacer makes the sends of those whose messages are the precision apart or more,
// each at or after its time, every one exactly once.
func TestPacerStepsSparseSenders(t *testing.T) {
	senders := make([]*sender, 20)
	for i := range senders {
		senders[i] = &sender{first: int64(i) * int64(100*time.Microsecond), gap: int64(2 * time.Millisecond), n: 10}
	}
	for i, err := range runSenders(t, context.Background(), senders) {
		s := senders[i]
		if err != nil || s.early != nil || s.done != s.n {
			t.Fatalf("sender %d: %d of %d steps, err %v, %v", i, s.done, s.n, err, s.early)
		}
	}
	// A step the host holds up for stallAfter hands its sender back to its own goroutine,
	// so not every step is the pacer's on a busy machine; without stepping, none would be.
	var pacer, all int
	for _, s := range senders {
		pacer, all = pacer+s.onPacer, all+s.done
	}
	if pacer < all/2 {
		t.Fatalf("the pacer made %d of %d steps, want most", pacer, all)
	}
}

// TestPacerHandsBackBatches: a sender whose step sends more than one (a batch, a catch-up)
// steps on its own goroutine from then on, so senders of batches publish in parallel.
func TestPacerHandsBackBatches(t *testing.T) {
	senders := make([]*sender, 6)
	for i := range senders {
		senders[i] = &sender{gap: int64(2 * time.Millisecond), n: 10}
	}
	senders[0].batch = true
	for i, err := range runSenders(t, context.Background(), senders) {
		if s := senders[i]; err != nil || s.early != nil || s.done != s.n {
			t.Fatalf("sender %d: %d of %d steps, err %v, %v", i, s.done, s.n, err, s.early)
		}
	}
	if got := senders[0].onPacer; got > 1 {
		t.Fatalf("the batch sender had %d of its steps made by the pacer, want its first at most", got)
	}
}

// TestPacerGoesOnPastABlockedStep: a step that blocks (a publish on a socket that does not
// drain holds nats.go's connection lock) must not hold up the other senders: the pacer's watch
// hands them to a new goroutine, and they finish while the blocked one is still stuck; the
// blocked sender then finishes on its own goroutine.
func TestPacerGoesOnPastABlockedStep(t *testing.T) {
	const block = time.Second
	senders := make([]*sender, 10)
	for i := range senders {
		senders[i] = &sender{first: int64(i) * int64(100*time.Microsecond), gap: int64(2 * time.Millisecond), n: 30}
	}
	var unblocked atomic.Int64
	clk := record.NewClock()
	senders[0].block = func(i int) {
		if i == 2 && onPacer() {
			time.Sleep(block)
			unblocked.Store(clk.Now())
		}
	}
	for i, err := range runSenders(t, context.Background(), senders) {
		if s := senders[i]; err != nil || s.early != nil || s.done != s.n {
			t.Fatalf("sender %d: %d of %d steps, err %v, %v", i, s.done, s.n, err, s.early)
		}
	}
	if unblocked.Load() == 0 {
		t.Skip("the blocked sender's third step was not the pacer's (handed back earlier by a busy host)")
	}
	for i, s := range senders[1:] {
		if s.finished > unblocked.Load() {
			t.Errorf("sender %d finished %v after the blocked step returned: the pacer waited for it", i+1, time.Duration(s.finished-unblocked.Load()))
		}
	}
	if s := senders[0]; s.onPacer != 3 {
		t.Errorf("the blocked sender had %d steps made by the pacer, want its first 3 (then its own goroutine)", s.onPacer)
	}
}

// TestPacerStepsEndWithTheContext: senders stepped by the pacer, their next sends far off,
// return the context's error at once when it ends, none of their steps running after.
func TestPacerStepsEndWithTheContext(t *testing.T) {
	senders := make([]*sender, 8)
	for i := range senders {
		senders[i] = &sender{gap: int64(time.Hour), n: 3}
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	for i, err := range runSenders(t, ctx, senders) {
		if !errors.Is(err, context.Canceled) || senders[i].done != 1 {
			t.Fatalf("sender %d: err %v after %d steps, want context.Canceled after 1", i, err, senders[i].done)
		}
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Run returned %v after the context ended", took)
	}
}

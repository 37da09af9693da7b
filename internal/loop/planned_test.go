package loop

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

// TestOwnSendersLeaveAProcessor: senders sleeping in nanosleep keep their Go processors, so
// at least one processor is always left to the goroutines reading the sockets.
func TestOwnSendersLeaveAProcessor(t *testing.T) {
	for _, c := range []struct {
		procs int
		want  int32
	}{{1, 0}, {2, 1}, {3, 2}, {4, 3}, {8, preciseSenders}, {64, preciseSenders}} {
		if got := ownSenders(c.procs); got != c.want {
			t.Errorf("ownSenders(%d) = %d, want %d", c.procs, got, c.want)
		}
	}
}

// TestPlannedIsTheGroupedWakeUp: a send within the precision of the previous wake-up is
// planned for the precision after it, and its intended send time is that planned wake-up,
// not its slot; a send on its own slot keeps the slot.
func TestPlannedIsTheGroupedWakeUp(t *testing.T) {
	const gap = 10 * time.Millisecond
	clk := record.NewClock()
	w := NewWaiter(clk, gap)
	defer w.Close()
	ctx := context.Background()
	var first, slot, want int64
	// A busy host may wake the first wait past the second's slot (which is then due at once):
	// try again until it does not.
	for try := 0; ; try++ {
		first = clk.Now() + int64(2*time.Millisecond)
		if _, err := w.Until(ctx, first); err != nil {
			t.Fatal(err)
		}
		// Its own slot, or with one Go processor (no sender sleeps on its own) the process's
		// pacer's wake-up, a precision after the pacer's previous one at most.
		p := w.Planned()
		if p < first || p > first+int64(gap) {
			t.Fatalf("a send on its own slot: planned +%v after it", time.Duration(p-first))
		}
		slot, want = p+int64(gap/2), p+int64(gap)
		if clk.Now() < slot {
			break
		}
		if try == 50 {
			t.Fatalf("50 waits woke %v or more late", gap/2)
		}
	}
	now, err := w.Until(ctx, slot)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Planned(); got != want {
		t.Fatalf("a send half the precision after the previous wake-up: planned +%v, want +%v (the precision)", time.Duration(got-first), time.Duration(want-first))
	}
	if now < want {
		t.Fatalf("woke %v before the planned wake-up", time.Duration(want-now))
	}
	if got := w.Intended(slot); got != want {
		t.Fatalf("Intended(slot) = +%v, want the planned wake-up +%v", time.Duration(got-first), time.Duration(want-first))
	}
	if later := want + 1; w.Intended(later) != later {
		t.Fatalf("a slot after the planned wake-up is its own intended time")
	}
	// A one-at-a-time sender (js pub async, requests) asks for each send: one its last
	// wake-up grouped, due already, goes in that wake-up; one behind its schedule, past the
	// last planned wake-up, keeps its slot.
	grouped := slot + 1
	if _, err := w.Until(ctx, grouped); err != nil {
		t.Fatal(err)
	}
	if got := w.Intended(grouped); got != want {
		t.Fatalf("a send the last wake-up grouped: intended +%v, want that wake-up's +%v", time.Duration(got-first), time.Duration(want-first))
	}
	time.Sleep(2 * gap)
	past := clk.Now() - int64(gap/2)
	if _, err := w.Until(ctx, past); err != nil {
		t.Fatal(err)
	}
	if got := w.Intended(past); got != past {
		t.Fatalf("a send behind its schedule: intended %d, want its slot %d", got, past)
	}
}

// TestTickerPlansGroupedSenders: with more senders than may sleep on their own, the pacer's
// planned wake-up is each woken sender's: a send's intended time is never before its slot,
// and for a slot the pacer grouped into a later wake-up, that wake-up (which the sender never
// wakes before).
func TestTickerPlansGroupedSenders(t *testing.T) {
	clk := record.NewClock()
	const n = preciseSenders + 4 // more than may sleep on their own, whatever GOMAXPROCS
	ws := make([]*Waiter, n)
	for i := range ws {
		ws[i] = NewWaiter(clk, time.Millisecond)
		defer ws[i].Close()
	}
	type got struct{ slot, intended, now int64 }
	// A busy host may wake the pacer so late that every send is simply late (planned at its
	// slot): try again until a wake-up groups some.
	for try := 0; ; try++ {
		out := make([][]got, n)
		start := clk.Now() + int64(5*time.Millisecond)
		var wg sync.WaitGroup
		for i, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range 5 {
					slot := start + int64(k)*int64(time.Millisecond) + int64(i)*int64(100*time.Microsecond)
					now, err := w.Until(context.Background(), slot)
					if err != nil {
						t.Error(err)
						return
					}
					out[i] = append(out[i], got{slot, w.Intended(slot), now})
				}
			}()
		}
		wg.Wait()
		grouped := 0
		for i := range out {
			for k, g := range out[i] {
				if g.intended < g.slot || g.now < g.intended {
					t.Fatalf("sender %d send %d: slot +%v, intended +%v, woke +%v: want slot <= intended <= woke",
						i, k, time.Duration(g.slot-start), time.Duration(g.intended-start), time.Duration(g.now-start))
				}
				if g.intended > g.slot {
					grouped++
				}
			}
		}
		// Slots 100us apart across senders, one wake-up per millisecond: most are grouped.
		if grouped > 0 {
			return
		}
		if try == 20 {
			t.Fatalf("no send was intended after its slot in 20 tries: the pacer's grouping is not in Planned")
		}
	}
}

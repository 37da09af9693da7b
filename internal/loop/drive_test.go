package loop

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

// counter is a Stepper with a send every gap, n sends in all; after marks Steps that came
// after its Drive returned, which must never happen.
type counter struct {
	gap      int64
	n, sent  int
	returned atomic.Bool
	late     atomic.Int64 // Steps after Drive returned
	early    atomic.Int64 // Steps before the send they were called for was due
	next     int64
}

func (c *counter) Step(now int64) (int64, bool) {
	if c.returned.Load() {
		c.late.Add(1)
	}
	if now < c.next {
		c.early.Add(1)
	}
	c.sent++
	c.next = now + c.gap
	return c.next, c.sent >= c.n
}

// TestDriveManySenders: one pacer steps every driven sender until it is done, never before
// its send is due; a sender whose ctx ends leaves at once and is never stepped again.
func TestDriveManySenders(t *testing.T) {
	clk := record.NewClock()
	var wg sync.WaitGroup
	const senders = 100
	cs := make([]*counter, senders)
	for i := range cs {
		c := &counter{gap: int64(time.Millisecond), n: 20, next: clk.Now()}
		cs[i] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Drive(context.Background(), clk, c, c.next); err != nil {
				t.Error(err)
			}
			c.returned.Store(true)
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	forever := &counter{gap: int64(100 * time.Microsecond), n: 1 << 62, next: clk.Now()}
	left := make(chan error, 1)
	go func() {
		err := Drive(ctx, clk, forever, forever.next)
		forever.returned.Store(true)
		left <- err
	}()
	wg.Wait()
	for i, c := range cs {
		if c.sent != c.n || c.late.Load() != 0 || c.early.Load() != 0 {
			t.Fatalf("sender %d: %d of %d sends, %d stepped after Drive returned, %d early", i, c.sent, c.n, c.late.Load(), c.early.Load())
		}
	}
	cancel()
	select {
	case err := <-left:
		if err != context.Canceled {
			t.Fatalf("Drive of a cancelled sender returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Drive did not return after its ctx ended")
	}
	// The pacer forgets it: give it time to step once more, which it must not.
	deadline := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := forever.late.Load(); n != 0 {
		t.Fatalf("stepped %d times after its Drive returned", n)
	}
}

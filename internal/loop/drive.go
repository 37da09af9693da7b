package loop

import (
	"container/heap"
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

// Stepper is a fixed-rate sender the process's pacer drives: Step sends what is due at now
// (a Clock reading) and returns when its next send is due, or done once it has finished.
// Step runs on the pacer's goroutine, one Stepper at a time, never concurrently with itself.
type Stepper interface {
	Step(now int64) (next int64, done bool)
}

// Drive hands s to the process's pacer, which calls s.Step on its own goroutine whenever s
// has something due, waking at most once per MinGap for all the senders it drives: a thousand
// paced clients cost one goroutine's wake-ups instead of a thousand (and no per-message
// wake-up of the client's goroutine). first is when s's first send is due. Drive returns once
// s is done, or when ctx ends; it never returns while s.Step runs, so the caller owns s's
// state again when it returns.
func Drive(ctx context.Context, clk record.Clock, s Stepper, first int64) error {
	e := &driven{s: s, clk: clk, next: first, done: make(chan struct{})}
	pacer.add(e)
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
	}
	// Leave the pacer: wait out a Step in progress, then make sure none starts.
	for !e.state.CompareAndSwap(idle, left) {
		if e.state.Load() == finished {
			return nil
		}
		runtime.Gosched()
	}
	return ctx.Err()
}

// States of a driven sender.
const (
	idle     int32 = iota // waiting for its next send
	stepping              // in Step on the pacer's goroutine
	left                  // its Drive returned early: never step it again
	finished              // its Step said done
)

type driven struct {
	s     Stepper
	clk   record.Clock // its run's: runs in one process each have their own
	next  int64
	state atomic.Int32
	done  chan struct{}
}

// pacer is the process's one goroutine that drives Steppers; it runs while any are driven.
var pacer = &driver{kick: make(chan struct{}, 1)}

type driver struct {
	mu      sync.Mutex
	added   []*driven // handed over since the pacer last looked
	running bool
	kick    chan struct{}
}

func (d *driver) add(e *driven) {
	d.mu.Lock()
	d.added = append(d.added, e)
	if !d.running {
		d.running = true
		go d.run()
	}
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// run steps every sender that is due, then sleeps until the next is due (at least MinGap
// after the last wake-up), until none is left.
func (d *driver) run() {
	var due drivenHeap
	t := NewTimer()
	for {
		d.mu.Lock()
		for _, e := range d.added {
			heap.Push(&due, e)
		}
		d.added = d.added[:0]
		if len(due) == 0 {
			d.running = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()

		var now int64
		for len(due) > 0 {
			e := due[0]
			if now = e.clk.Now(); e.next > now {
				break
			}
			if !e.state.CompareAndSwap(idle, stepping) {
				heap.Pop(&due) // its Drive returned early
				continue
			}
			next, done := e.s.Step(now)
			if done {
				e.state.Store(finished)
				close(e.done)
				heap.Pop(&due)
			} else {
				e.state.Store(idle)
				e.next = next
				heap.Fix(&due, 0)
			}
		}
		if len(due) == 0 {
			continue
		}
		// Sleep until the earliest is due, but at least MinGap from this wake-up: what falls
		// due sooner goes with the next one.
		wake := max(due[0].next, now+int64(MinGap))
		wait := time.Duration(wake - now)
		if wait > coarseAbove {
			t.Reset(wait - coarseEarly)
			select {
			case <-t.C:
			case <-d.kick:
				if !t.Stop() {
					<-t.C
				}
			}
			continue
		}
		select {
		case <-d.kick: // a new sender may be due first: look before sleeping
			continue
		default:
		}
		preciseSleep(wait)
	}
}

// drivenHeap orders driven senders by their next send.
type drivenHeap []*driven

func (h drivenHeap) Len() int           { return len(h) }
func (h drivenHeap) Less(i, j int) bool { return h[i].next < h[j].next }
func (h drivenHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *drivenHeap) Push(x any)        { *h = append(*h, x.(*driven)) }
func (h *drivenHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

package loop

import (
	"container/heap"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// ticks is the process's one pacer for its paced senders when there are more than
// preciseSenders: each waits for its own send time, and one goroutine sleeps until the
// earliest, then wakes every sender due by then at once, or makes their sends itself (see
// Run). Its wake-ups are at least the precision apart (what falls due sooner goes with the
// next one), so however many clients a process paces, it wakes at most once per precision for
// all of them, and a send time with no other within the precision before it is kept exactly.
var ticks = &ticker{kick: make(chan struct{}, 1)}

// tickerFires counts the pacer's wake-ups that woke senders (for tests).
var tickerFires atomic.Int64

// stallAfter is how long a step the pacer makes may take before its watch gives the other
// senders to a new pacer goroutine: a publish blocked on a connection whose socket does not
// drain may hold the goroutine for nats.go's flusher timeout (a minute). A step normally
// takes microseconds; a host too busy to run it for this long hands the sender back for
// nothing worse than its own goroutine's wake-ups.
const stallAfter = 20 * time.Millisecond

// A stepped sender's place in its wake-up (slot.state).
const (
	queued   int32 = iota // due, not yet stepped
	stepping              // its step is running
	stepped               // stepped, to go back on the heap
	moved                 // handed back, or taken by the watch
)

// slot is a sender in one wake-up of one pacer goroutine. Its state belongs to that
// goroutine's batch, never reused by another goroutine, so a superseded goroutine and the
// watch settle each sender's fate with one compare-and-swap.
type slot struct {
	w     *Waiter
	state atomic.Int32
}

type ticker struct {
	mu       sync.Mutex
	waiting  waiterHeap // by due time
	last     int64      // when the previous wake-up was due (Clock ns)
	running  bool
	watching bool
	kick     chan struct{} // an earlier send was added
	now      func() int64
	cur      *pacerRun  // the goroutine now making the wake-ups
	fine     *fineTimer // what the pacer waits on; nil: a Go timer (no timerfd)
	fineOnce sync.Once
}

// pacerRun is one pacer goroutine's life: it ends when nobody waits or when the watch
// replaces it because one of its steps blocked.
type pacerRun struct {
	batch      []slot       // the senders to step in the wake-up in progress (under ticker.mu)
	claimed    atomic.Int32 // how many of batch were taken, by the goroutine or the watch
	stepStart  atomic.Int64 // when the step in progress began (Clock ns), 0 between steps
	superseded atomic.Bool
}

// wait blocks until due (a Clock time) has passed or ctx ends.
func (k *ticker) wait(ctx context.Context, w *Waiter, due int64) error {
	k.add(w, due)
	select {
	case <-w.wake:
		return nil
	case <-ctx.Done():
		k.mu.Lock()
		if w.index >= 0 {
			heap.Remove(&k.waiting, w.index)
		} else {
			select { // woken meanwhile: the signal is in the channel (sent under the lock)
			case <-w.wake:
			default:
			}
		}
		k.mu.Unlock()
		return ctx.Err()
	}
}

// serve gives w to the pacer, which makes w's sends with step from next on until step is done
// or fails, a step sends more than one, or the step blocks (see Run). It returns the last
// step's outcome; or ctx's error once w is off the pacer, with no step of it running.
func (k *ticker) serve(ctx context.Context, w *Waiter, next int64, step Step) (Stepped, error) {
	w.step, w.out, w.outErr, w.cancel = step, Stepped{}, nil, false
	defer func() { w.step = nil }()
	due, _ := w.plan(next)
	k.add(w, due)
	select {
	case <-w.wake:
		return w.out, w.outErr
	case <-ctx.Done():
	}
	k.mu.Lock()
	if w.index >= 0 {
		heap.Remove(&k.waiting, w.index)
		k.mu.Unlock()
		return Stepped{}, ctx.Err()
	}
	w.cancel = true // in a wake-up: the pacer hands it back instead of keeping it
	k.mu.Unlock()
	<-w.wake
	if w.outErr != nil || w.out.Done {
		return w.out, w.outErr
	}
	return w.out, ctx.Err()
}

// add puts w on the heap, due at due, starting the pacer if it is not running (and its watch,
// for a sender it steps).
func (k *ticker) add(w *Waiter, due int64) {
	k.mu.Lock()
	w.due = due
	heap.Push(&k.waiting, w)
	if !k.running {
		k.fineOnce.Do(func() {
			if f, err := newFineTimer(k.kicked); err == nil {
				k.fine = f // the process's, for its life: one descriptor
			}
		})
		k.running, k.now = true, w.clk.Now
		k.cur = &pacerRun{}
		go k.run(k.cur)
	} else if w.index == 0 {
		select {
		case k.kick <- struct{}{}:
		default:
		}
		if k.fine != nil {
			k.fine.Reset(0) // end the pacer's wait now: it re-plans
		}
	}
	if w.step != nil && !k.watching {
		k.watching = true
		go k.watch()
	}
	k.mu.Unlock()
}

// run wakes the senders due, a wake-up at least the precision after the previous one, and
// makes the sends of those it steps; it ends when nobody waits, or when the watch replaced it.
func (k *ticker) run(r *pacerRun) {
	t := NewTimer()
	for {
		k.mu.Lock()
		if r.superseded.Load() {
			k.mu.Unlock()
			return
		}
		k.requeue(r)
		if len(k.waiting) == 0 {
			k.running = false
			k.mu.Unlock()
			return
		}
		next, now := max(k.waiting[0].due, k.last+k.waiting[0].precision), k.now()
		if now >= next {
			for len(k.waiting) > 0 && k.waiting[0].due <= now {
				w := heap.Pop(&k.waiting).(*Waiter)
				// Due before this wake-up's planned time: grouped into it by the precision.
				w.planned = max(w.due, next)
				if w.step == nil {
					w.wake <- struct{}{}
					continue
				}
				r.batch = append(r.batch, slot{w: w})
			}
			r.claimed.Store(0)
			k.last = next
			tickerFires.Add(1)
			batch := r.batch
			k.mu.Unlock()
			k.steps(r, batch)
			continue
		}
		k.mu.Unlock()
		k.sleep(t, time.Duration(next-now))
	}
}

// sleep waits d, or less when an earlier send is added meanwhile (kick). It waits on the
// process's timerfd (fineTimer): the pacer's goroutine holds no thread and no Go processor
// while it waits, so the goroutines reading the sockets run at once whatever the number of
// processors, and the kernel ends the wait within microseconds instead of the Go timer's
// millisecond (a wake-up later than planned counts as latency, see Waiter.Planned). Without
// a timerfd it waits on t, a Go timer.
func (k *ticker) sleep(t *time.Timer, d time.Duration) {
	if k.fine == nil {
		t.Reset(d)
		select {
		case <-t.C:
		case <-k.kick:
			if !t.Stop() {
				<-t.C
			}
		}
		return
	}
	if err := k.fine.Sleep(d); err != nil {
		// Never seen; were it to repeat, the loop would spin: wait on Go's timer from now on.
		k.mu.Lock()
		k.fine = nil
		k.mu.Unlock()
	}
	k.kicked()
}

// kicked reports, and clears, a kick (an earlier send was added).
func (k *ticker) kicked() bool {
	select {
	case <-k.kick:
		return true
	default:
		return false
	}
}

// steps makes the sends of a wake-up's stepped senders, claiming them one by one (the watch
// may take the rest). Those that go on stay in the batch, stepped, until requeue puts them
// back on the heap; the others are handed back to their own goroutines.
func (k *ticker) steps(r *pacerRun, batch []slot) {
	for {
		i := int(r.claimed.Add(1)) - 1
		if i >= len(batch) {
			return // done, or the watch took the rest: this goroutine is superseded
		}
		s := &batch[i]
		if !s.state.CompareAndSwap(queued, stepping) {
			return // taken by the watch
		}
		w := s.w
		now := k.now()
		r.stepStart.Store(now)
		out, err := w.step(now)
		r.stepStart.Store(0)
		keep := err == nil && !out.Done && out.Sent <= 1
		last := w.last
		final := moved
		if keep {
			w.out = out
			w.due, _ = w.plan(out.Next)
			final = stepped
		}
		if !s.state.CompareAndSwap(stepping, final) {
			// The watch found this step blocked and replaced the goroutine.
			w.last, w.stalled = last, true
			w.handBack(out, err)
			return
		}
		if !keep {
			w.handBack(out, err)
		}
	}
}

// requeue puts r's stepped senders back on the heap and empties its batch. Called with k.mu
// held.
func (k *ticker) requeue(r *pacerRun) {
	for i := range r.batch {
		if r.batch[i].state.Load() == stepped {
			k.keep(r.batch[i].w)
		}
		r.batch[i].w = nil
	}
	r.batch = r.batch[:0]
}

// keep puts a stepped sender back on the heap, or hands it back when its context ended.
// Called with k.mu held.
func (k *ticker) keep(w *Waiter) {
	if w.cancel {
		w.handBack(w.out, nil)
		return
	}
	heap.Push(&k.waiting, w)
}

// watch replaces the pacer goroutine when one of its steps has blocked for stallAfter: the
// senders of that wake-up not yet stepped go back on the heap for a new goroutine, and the
// blocked one goes on on its own goroutine once its step returns. It ends with the pacer.
func (k *ticker) watch() {
	t := time.NewTicker(stallAfter)
	defer t.Stop()
	for range t.C {
		k.mu.Lock()
		if !k.running {
			k.watching = false
			k.mu.Unlock()
			return
		}
		r := k.cur
		if began := r.stepStart.Load(); began != 0 && k.now()-began > int64(stallAfter) {
			r.superseded.Store(true)
			r.claimed.Store(1 << 30) // the goroutine claims no more
			for i := range r.batch {
				s := &r.batch[i]
				switch {
				case s.state.CompareAndSwap(queued, moved):
					heap.Push(&k.waiting, s.w)
				case s.state.CompareAndSwap(stepping, moved):
					// blocked: its goroutine hands it back when the step returns
				case s.state.Load() == stepped:
					k.keep(s.w)
				}
			}
			r.batch = nil // the superseded goroutine may still read the old array
			k.cur = &pacerRun{}
			go k.run(k.cur)
		}
		k.mu.Unlock()
	}
}

// waiterHeap is a min-heap of waiting senders by due time.
type waiterHeap []*Waiter

func (h waiterHeap) Len() int           { return len(h) }
func (h waiterHeap) Less(i, j int) bool { return h[i].due < h[j].due }
func (h waiterHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waiterHeap) Push(x any) {
	w := x.(*Waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waiterHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	w.index = -1
	*h = old[:len(old)-1]
	return w
}

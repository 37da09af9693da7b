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
// earliest, then wakes every sender due by then at once. Its wake-ups are at least the
// precision apart (what falls due sooner goes with the next one), so however many clients a
// process paces, it wakes at most once per precision for all of them, and a send time with
// no other within the precision before it is kept exactly.
var ticks = &ticker{kick: make(chan struct{}, 1)}

// tickerFires counts the pacer's wake-ups that woke senders (for tests).
var tickerFires atomic.Int64

type ticker struct {
	mu      sync.Mutex
	waiting waiterHeap // by due time
	last    int64      // when the previous wake-up was due (Clock ns)
	running bool
	kick    chan struct{} // an earlier send was added
	now     func() int64
}

// wait blocks until due (a Clock time) has passed or ctx ends.
func (k *ticker) wait(ctx context.Context, w *Waiter, due int64) error {
	k.mu.Lock()
	w.due = due
	heap.Push(&k.waiting, w)
	if !k.running {
		k.running, k.now = true, w.clk.Now
		go k.run()
	} else if w.index == 0 {
		select {
		case k.kick <- struct{}{}:
		default:
		}
	}
	k.mu.Unlock()
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

// run wakes the senders due, a wake-up at least the precision after the previous one; it
// ends when nobody waits.
func (k *ticker) run() {
	t := NewTimer()
	for {
		k.mu.Lock()
		if len(k.waiting) == 0 {
			k.running = false
			k.mu.Unlock()
			return
		}
		next, now := max(k.waiting[0].due, k.last+precision.Load()), k.now()
		if now >= next {
			for len(k.waiting) > 0 && k.waiting[0].due <= now {
				w := heap.Pop(&k.waiting).(*Waiter)
				w.wake <- struct{}{}
			}
			k.last = next
			tickerFires.Add(1)
			k.mu.Unlock()
			continue
		}
		k.mu.Unlock()
		wait := time.Duration(next - now)
		if wait > coarseAbove {
			t.Reset(wait - coarseEarly)
			select {
			case <-t.C:
			case <-k.kick:
				if !t.Stop() {
					<-t.C
				}
			}
			continue
		}
		preciseSleep(wait)
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

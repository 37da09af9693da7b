package loop

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// ticks is the process's one pacer for senders beyond preciseSenders: they wait on wake-up
// times rounded up to a MinGap grid, and one goroutine sleeps until the earliest and wakes
// every sender waiting for it at once, so a thousand paced clients cost one wake-up per
// MinGap at most instead of a thread's sleep each.
var ticks = &ticker{at: map[int64]chan struct{}{}, kick: make(chan struct{}, 1)}

type ticker struct {
	mu      sync.Mutex
	at      map[int64]chan struct{} // tick time (Clock ns) -> closed at that tick
	times   tickHeap
	running bool
	kick    chan struct{} // an earlier tick was added
	now     func() int64
}

// wait blocks until tick (a Clock time on the MinGap grid) has passed or ctx ends.
func (k *ticker) wait(ctx context.Context, now func() int64, tick int64) error {
	k.mu.Lock()
	ch, ok := k.at[tick]
	if !ok {
		ch = make(chan struct{})
		k.at[tick] = ch
		heap.Push(&k.times, tick)
		if !k.running {
			k.running, k.now = true, now
			go k.run()
		} else if k.times[0] == tick {
			select {
			case k.kick <- struct{}{}:
			default:
			}
		}
	}
	k.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run wakes the waiters of each tick in turn; it ends when nobody waits.
func (k *ticker) run() {
	t := NewTimer()
	for {
		k.mu.Lock()
		if len(k.times) == 0 {
			k.running = false
			k.mu.Unlock()
			return
		}
		next, now := k.times[0], k.now()
		if now >= next {
			heap.Pop(&k.times)
			close(k.at[next])
			delete(k.at, next)
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

// tickHeap is a min-heap of tick times.
type tickHeap []int64

func (h tickHeap) Len() int           { return len(h) }
func (h tickHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h tickHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *tickHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *tickHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

package telemetry

import (
	"context"
	"sort"
	"time"

	"github.com/natsperf/natsperf/result"
)

// stallTick is how often the stall watch sets its timer: 50 wake-ups a second see every
// stall of 20 ms or more (any stall long enough to matter next to a spike, whose floor is
// 50 ms) and cost about a thousandth of a core (docs/performance.md); 5 ms cost four times
// that.
const stallTick = 20 * time.Millisecond

// minStall is the smallest stall kept in the Result: below it a timer is merely late.
const minStall = 5 * time.Millisecond

// watchStalls measures how late a short timer fires in this process, the worst per
// interval (jHiccup's idea): when the machine generating the load stalls (a busy shared
// host, a GC pause, the embedded servers' own work) every client stalls with it, and a
// latency spike then says nothing about the servers.
func (s *Sampler) watchStalls(ctx context.Context, start time.Time, interval time.Duration) {
	t := time.NewTimer(stallTick)
	defer t.Stop()
	waits, iv := runQueueWaits(), time.Duration(0) // per thread, at the start of interval iv
	for {
		set := time.Now()
		if at := set.Sub(start) / interval * interval; at != iv && at > 0 {
			now := runQueueWaits()
			s.noteRunQueue(iv, longestWait(waits, now))
			waits, iv = now, at
		}
		select {
		case <-ctx.Done():
			// The run's end may be late because of a stall: keep the one in progress.
			if late := time.Since(set) - stallTick; late >= minStall {
				s.noteStall(time.Since(start)-late, late, interval)
			}
			return
		case <-t.C:
			now := time.Now() // not the channel's value: that is when the timer fired, not when this ran
			if late := now.Sub(set) - stallTick; late >= minStall {
				s.noteStall(now.Sub(start)-late, late, interval)
			}
			t.Reset(stallTick)
		}
	}
}

// noteStall keeps the worst stall of the interval it began in.
func (s *Sampler) noteStall(at, late, interval time.Duration) {
	s.keepStall(max(at, 0)/interval*interval, func(st *result.Stall) { st.Max = max(st.Max, late) })
}

// keepStall applies f to the stall record of the interval starting at, adding one (in
// order) when there is none.
func (s *Sampler) keepStall(at time.Duration, f func(*result.Stall)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.stalls {
		if s.stalls[i].Offset == at {
			f(&s.stalls[i])
			return
		}
	}
	s.stalls = append(s.stalls, result.Stall{Offset: at})
	f(&s.stalls[len(s.stalls)-1])
	sort.Slice(s.stalls, func(a, b int) bool { return s.stalls[a].Offset < s.stalls[b].Offset })
}

// longestWait is the most any one thread waited for a CPU between two readings.
func longestWait(before, after map[string]int64) time.Duration {
	var w int64
	for id, n := range after {
		w = max(w, n-before[id]) // a thread born since: all its wait is new
	}
	return time.Duration(w)
}

// noteRunQueue keeps the longest run-queue wait of interval at, when it matters.
func (s *Sampler) noteRunQueue(at, wait time.Duration) {
	if wait >= minStall {
		s.keepStall(at, func(st *result.Stall) { st.RunQueue = max(st.RunQueue, wait) })
	}
}

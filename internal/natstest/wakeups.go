package natstest

import (
	"slices"
	"time"
)

// WakeUps measures how late this machine wakes a goroutine that sleeps 1ms, again and again
// until the returned stop is called, which returns the P99 of that lateness: the scheduler's
// precision meanwhile, a reference natsperf has no part in. A test that needs a machine that
// wakes on time judges its tight bounds only where this stayed small.
func WakeUps() (stop func() time.Duration) {
	done, result := make(chan struct{}), make(chan time.Duration)
	go func() {
		var late []time.Duration
		for {
			select {
			case <-done:
				if len(late) == 0 {
					result <- 0
					return
				}
				slices.Sort(late)
				result <- late[len(late)*99/100]
				return
			default:
			}
			due := time.Now().Add(time.Millisecond)
			time.Sleep(time.Millisecond)
			late = append(late, time.Since(due))
		}
	}()
	return func() time.Duration { close(done); return <-result }
}

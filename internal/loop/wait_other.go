//go:build !linux

package loop

import "time"

// preciseSleep sleeps d; other systems' timers are precise enough.
func preciseSleep(d time.Duration) { time.Sleep(d) }

// fineTimer is a Go timer where there is no timerfd.
type fineTimer struct {
	t      *time.Timer
	kicked func() bool
}

func newFineTimer(kicked func() bool) (*fineTimer, error) {
	return &fineTimer{t: NewTimer(), kicked: kicked}, nil
}

// Reset arms the timer to expire in d.
func (t *fineTimer) Reset(d time.Duration) {
	t.t.Reset(max(d, 1)) // since Go 1.23 a Reset timer sends no stale value
}

// Sleep arms the timer to expire in d and waits until it does (a Reset from another
// goroutine ends it sooner), or returns at once when kicked reports an earlier send.
func (t *fineTimer) Sleep(d time.Duration) error {
	t.Reset(d)
	if t.kicked != nil && t.kicked() {
		return nil
	}
	<-t.t.C
	return nil
}

// Close stops the timer.
func (t *fineTimer) Close() error { t.t.Stop(); return nil }

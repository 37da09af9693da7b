//go:build !linux

package loop

import "time"

// preciseSleep sleeps d; other systems' timers are precise enough.
func preciseSleep(d time.Duration) { time.Sleep(d) }

// fineTimer is a Go timer where there is no timerfd.
type fineTimer struct{ t *time.Timer }

func newFineTimer() (*fineTimer, error) { return &fineTimer{t: NewTimer()}, nil }

// Reset arms the timer to expire in d.
func (t *fineTimer) Reset(d time.Duration) {
	t.t.Reset(max(d, 1)) // since Go 1.23 a Reset timer sends no stale value
}

// Wait blocks until the timer expires.
func (t *fineTimer) Wait(time.Time) error { <-t.t.C; return nil }

// Close stops the timer.
func (t *fineTimer) Close() error { t.t.Stop(); return nil }

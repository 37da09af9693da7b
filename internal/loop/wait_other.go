//go:build !linux

package loop

import "time"

// preciseSleep sleeps d; other systems' timers are precise enough.
func preciseSleep(d time.Duration) { time.Sleep(d) }

package loop

import (
	"syscall"
	"time"
)

// preciseSleep sleeps d with nanosleep, which the kernel ends within its timer slack (about
// 50us) instead of the netpoller's millisecond. It blocks the thread briefly; the runtime
// hands the P to other goroutines meanwhile.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

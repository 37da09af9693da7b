package loop

import (
	"runtime"
	"syscall"
	"time"
)

// timerSlack is the timer slack preciseSleep asks for, in nanoseconds: the kernel may end a
// sleep this much late to merge wake-ups (50us by default).
const timerSlack = 1000

// preciseSleep sleeps d with nanosleep, which the kernel ends within its timer slack instead
// of the netpoller's millisecond. The slack is the calling thread's, set before each sleep
// since a goroutine may move between threads. It blocks the thread briefly; the runtime
// hands the P to other goroutines meanwhile.
//
// It first lets the goroutines this one readied run (nats.go's flushers, woken by the
// publishes just made): left queued on the P of a thread asleep in nanosleep, they wait for
// the runtime's monitor to hand that P to another thread (tens of microseconds later, and a
// thread wake-up each time), so the messages left late and cost more. Yielding first writes
// them now, on this thread.
func preciseSleep(d time.Duration) {
	start := time.Now()
	runtime.Gosched()
	if d -= time.Since(start); d <= 0 {
		return
	}
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_TIMERSLACK, timerSlack, 0)
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

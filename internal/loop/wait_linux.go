package loop

import (
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
func preciseSleep(d time.Duration) {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_TIMERSLACK, timerSlack, 0)
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

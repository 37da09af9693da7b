package loop

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// timerSlack is the timer slack preciseSleep asks for, in nanoseconds: the kernel may end a
// sleep this much late to merge wake-ups (50us by default).
const timerSlack = 1000

// preciseSleep sleeps d with nanosleep, which the kernel ends within its timer slack instead
// of the netpoller's millisecond. The slack is the calling thread's, set before each sleep
// since a goroutine may move between threads.
//
// The sleeping thread keeps its Go processor (P) while in the kernel: the runtime takes a P
// back from a system call only once the same call has lasted a whole tick of its monitor, and
// sleeps shorter than that never do. So the callers keep at least one P out of such sleeps
// (Waiter.own): were every P asleep here, the goroutines the netpoller readies (the readers
// of acks and deliveries) would wait for the monitor's own poll of the network, up to 10ms
// later.
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

// fineTimer is a timerfd the netpoller watches: a goroutine waiting on it holds no thread
// and no P, and the kernel ends the wait within the timer slack of the netpoller's thread
// (a Go timer rounds a wait up to the netpoller's next millisecond). Reset may be called from
// another goroutine while one waits: the wait then ends at the new time.
type fineTimer struct {
	f   *os.File
	fd  uintptr
	buf [8]byte
}

const (
	tfdNonblock = syscall.O_NONBLOCK
	tfdCloexec  = syscall.O_CLOEXEC
)

func newFineTimer() (*fineTimer, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, 1 /* CLOCK_MONOTONIC */, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return nil, errno
	}
	// A non-blocking descriptor: os.NewFile registers it with the netpoller.
	return &fineTimer{f: os.NewFile(fd, "pacer-timer"), fd: fd}, nil
}

// Reset arms the timer to expire in d (at once when d <= 0).
func (t *fineTimer) Reset(d time.Duration) {
	// struct itimerspec: no interval (one expiry), then the value; an all-zero value disarms.
	spec := [2]syscall.Timespec{{}, syscall.NsecToTimespec(int64(max(d, 1)))}
	_, _, _ = syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

// Wait blocks until the timer expires, or at the latest until the Go runtime's timers say
// by is past. The netpoller sees the timerfd at once when a Go processor is idle, but a
// processor kept busy polls the network only every 10ms (the runtime's monitor), while it
// runs its timers at every scheduling: the read deadline is that Go timer.
func (t *fineTimer) Wait(by time.Time) error {
	if err := t.f.SetReadDeadline(by); err != nil {
		return err
	}
	_, err := t.f.Read(t.buf[:])
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil
	}
	return err
}

// Close releases the descriptor.
func (t *fineTimer) Close() error { return t.f.Close() }

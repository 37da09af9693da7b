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
// another goroutine while one sleeps: the sleep then ends at the new time.
type fineTimer struct {
	f  *os.File
	rc syscall.RawConn
	fd uintptr

	kicked func() bool
	// The sleep in progress, for onReady (one sleeper at a time: the pacer's goroutine).
	d     time.Duration
	armed bool
	ready func(fd uintptr) bool // onReady, bound once
}

const (
	tfdNonblock = syscall.O_NONBLOCK
	tfdCloexec  = syscall.O_CLOEXEC
)

// newFineTimer returns a fineTimer whose sleeps end at once when kicked (may be nil) reports,
// once the timer is armed, that an earlier send was added before.
func newFineTimer(kicked func() bool) (*fineTimer, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, 1 /* CLOCK_MONOTONIC */, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return nil, errno
	}
	// A non-blocking descriptor: os.NewFile registers it with the netpoller.
	t := &fineTimer{f: os.NewFile(fd, "pacer-timer"), fd: fd, kicked: kicked}
	rc, err := t.f.SyscallConn()
	if err != nil {
		t.f.Close()
		return nil, err
	}
	t.rc, t.ready = rc, t.onReady
	return t, nil
}

// Reset arms the timer to expire in d (at once when d <= 0).
func (t *fineTimer) Reset(d time.Duration) {
	// struct itimerspec: no interval (one expiry), then the value; an all-zero value disarms.
	spec := [2]syscall.Timespec{{}, syscall.NsecToTimespec(int64(max(d, 1)))}
	_, _, _ = syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

// monitorLead is how long before the timerfd's expiry the Go timer that backs a Sleep up
// ends, for sleeps longer than twice that. The runtime's monitor thread (sysmon) sleeps until
// the earliest Go timer when every Go processor is idle, and a system call made while it so
// sleeps wakes it and resets it to polling every 20us for the next millisecond or more. With
// the Go timer at the timerfd's own time, the timerfd (which the kernel ends on time) won
// every race, and the pacer's system calls after each wake-up woke the monitor: 2,000-3,500
// extra thread wake-ups a second with 8 paced senders (docs/performance.md, eighth round). A
// Go timer ending first lets the monitor wake on its own and back off to 10ms sleeps, as it
// does beside a pacer on Go's timers. It is longer than the monitor's timer slack (50us).
const monitorLead = 100 * time.Microsecond

// Sleep waits until the timer, armed here to expire in d, expires; or until a Reset from
// another goroutine makes it expire sooner; or at once when kicked reports (once armed) that
// an earlier send was added before the timer was armed (its Reset re-armed nothing). A Go timer backs it up: the
// netpoller sees the timerfd at once when a Go processor is idle, but a processor kept busy
// polls the network only every 10ms (the runtime's monitor), while it runs its timers at
// every scheduling. That timer ends monitorLead early (see there), so a Sleep may end that
// much before d: the caller re-reads the clock and sleeps the rest.
//
// One system call per sleep, the arming: the timer is armed inside the read's callback, after
// the poller forgot any earlier readiness, so its expiry cannot be missed, and the expiry is
// never read (the poller is edge-triggered, and arming clears the count), where reading first
// and after the wake-up cost two more.
func (t *fineTimer) Sleep(d time.Duration) error {
	by := time.Now().Add(d)
	if d > 2*monitorLead {
		by = by.Add(-monitorLead)
	}
	return t.sleep(d, by)
}

// sleep is Sleep with its Go timer at by.
func (t *fineTimer) sleep(d time.Duration, by time.Time) error {
	if err := t.f.SetReadDeadline(by); err != nil {
		return err
	}
	t.d, t.armed = d, false
	err := t.rc.Read(t.ready)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil
	}
	return err
}

// onReady is the read's callback: the first call arms the timer and waits unless kicked; a
// later one comes after the poller saw the timerfd expire (or a stale expiry of an earlier
// arming: the caller re-reads the clock either way).
func (t *fineTimer) onReady(uintptr) bool {
	if t.armed {
		return true
	}
	t.armed = true
	t.Reset(t.d)
	return t.kicked != nil && t.kicked()
}

// Close releases the descriptor.
func (t *fineTimer) Close() error { return t.f.Close() }

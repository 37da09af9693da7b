//! When fixed-rate senders send: the arithmetic of natsperf's Go `internal/pace`. Sender `index`
//! of `count` sends its i-th message (0-based) at `(i*count + index) / rate` after the start, and a
//! sender that wakes late sends everything that fell due, each with its own intended time, so the
//! schedule and not the sender's luck decides the send times (coordinated-omission correction).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::watch;

// The fixed-rate wait, as Go's `loop.Waiter`. tokio's timer wheel has millisecond resolution:
// a sender woken by it alone is up to a millisecond late, and at a fixed rate that lateness
// would show as latency. So a long wait sleeps on tokio's timer until COARSE_EARLY before the
// send, the rest with the thread's precise sleep, and only the last SPIN_BELOW yield.
const COARSE_ABOVE: Duration = Duration::from_millis(2);
const COARSE_EARLY: Duration = Duration::from_micros(1500);
const SPIN_BELOW: Duration = Duration::from_micros(10);
/// The coarsest pacing precision natsperf-rust chooses (`choose_precision`), and its choice up
/// to 40,000 msgs/s per sender: messages due within it of the last wake-up go together at the
/// next one (at most 4,000 wake-ups a second), late by less than it.
pub const MIN_GAP: Duration = Duration::from_micros(250);
/// The finest pacing precision natsperf-rust chooses (Go's `loop.MinChosenPrecision`).
pub const MIN_CHOSEN: Duration = Duration::from_micros(200);
/// How many messages one wake-up may send back to back at the chosen precision (Go's
/// `loop.burst`): a receiver queues a burst.
const BURST: f64 = 10.0;
/// The range of a Spec's pace_precision (Go's spec.MinPacePrecision, MaxPacePrecision).
pub const MIN_PRECISION: Duration = Duration::from_micros(50);
pub const MAX_PRECISION: Duration = Duration::from_millis(100);

/// The process's pacing precision (ns), as Go's `loop.Precision`: every sender's waiter reads
/// it, and the Result's paced groups record it (pace_precision_ns).
static PRECISION_NS: AtomicU64 = AtomicU64::new(MIN_GAP.as_nanos() as u64);

/// Whether the process's precision was chosen from the rate (`set_precision` given none): the
/// Result's paced groups say so (pace_precision_chosen).
static CHOSEN: AtomicBool = AtomicBool::new(false);

/// Sets the pacing precision of the senders that start next: a Spec's pace_precision, or,
/// zero, the one chosen for senders of at most `fastest` msgs/s each (`choose_precision`).
pub fn set_precision(d: Duration, fastest: f64) {
    let chosen = d.is_zero();
    let d = if chosen { choose_precision(fastest) } else { d };
    PRECISION_NS.store(d.as_nanos() as u64, Ordering::Relaxed);
    CHOSEN.store(chosen, Ordering::Relaxed);
}

/// The pacing precision of a run with none set, as Go's `loop.ChoosePrecision` for senders that
/// each sleep on their own (natsperf-rust has no shared pacer): the time in which BURST
/// messages of the fastest sender fall due, between MIN_CHOSEN and MIN_GAP (Go's ceiling is 1
/// ms; natsperf-rust's default was MIN_GAP before the choice, and stays so up to 40,000
/// msgs/s per sender).
pub fn choose_precision(fastest: f64) -> Duration {
    if fastest <= 0.0 {
        return MIN_GAP;
    }
    Duration::from_secs_f64(BURST / fastest).clamp(MIN_CHOSEN, MIN_GAP)
}

/// Whether the process's precision was chosen from the rate.
pub fn chosen() -> bool {
    CHOSEN.load(Ordering::Relaxed)
}

/// The process's pacing precision.
pub fn precision() -> Duration {
    Duration::from_nanos(PRECISION_NS.load(Ordering::Relaxed))
}
/// How many senders of the process may wait precisely at once; the others sleep the whole wait.
const PRECISE_SENDERS: usize = 4;

static SPINNING: AtomicUsize = AtomicUsize::new(0);

/// One fixed-rate sender's way of waiting for its next send.
pub struct Waiter {
    last: Option<Instant>,
    planned: Option<Instant>,
    precise: bool,
    gap: Duration,
    /// The open model's wait (`evented`): a timer the runtime's poller watches, so the task
    /// takes answers while it waits and never blocks its worker thread.
    evented: Option<Evented>,
}

impl Waiter {
    pub fn new() -> Waiter {
        let precise = SPINNING.fetch_add(1, Ordering::Relaxed) < PRECISE_SENDERS;
        Waiter {
            last: None,
            planned: None,
            precise,
            gap: precision(),
            evented: None,
        }
    }

    /// The waiter of a sender that awaits answers while it waits (the open model): a timerfd
    /// on the runtime's poller where there is one (Linux), as Go's shared pacer waits. The
    /// thread's precise sleep (`precise_sleep`) would hand the worker to another thread at
    /// every send and leave the answers unread meanwhile: under a busy host, those hand-offs
    /// made the sends 17-71 ms late at P99 and the answers' times later than they came.
    pub fn evented() -> Waiter {
        let mut w = Waiter::new();
        w.evented = Evented::new();
        w
    }

    /// When the last wait (`until`) was planned to end: `due`, or the precision after the
    /// previous wake-up when `due` was within it. As Go's `loop.Waiter.Planned`, the intended
    /// send time of a message sent after the wait is the later of its slot and this: the
    /// grouping of sends into one wake-up is in the send lateness (from the slot), not in the
    /// latency; a wake-up later than planned counts in full.
    pub fn planned(&self) -> Option<Instant> {
        self.planned
    }

    /// Waits until `due` (or the precision after the last wake-up, whichever is later); false
    /// when the run was stopped meanwhile.
    pub async fn until(&mut self, due: Instant, stop: &mut watch::Receiver<bool>) -> bool {
        let mut target = due;
        let mut spin = true;
        if let Some(last) = self.last {
            if due < last + self.gap {
                target = last + self.gap; // late by design: no need to spin for it
                spin = false;
            }
        }
        // Set when the wait ends, not before: a wait dropped half-way (the open model drops it
        // for an answer) must not leave a planned time later than the next send.
        loop {
            let now = Instant::now();
            if now >= target {
                self.last = Some(now);
                self.planned = Some(target);
                return true;
            }
            if let Some(ev) = &self.evented {
                tokio::select! {
                    r = ev.wait(target) => if r.is_err() { self.evented = None },
                    _ = stop.changed() => return false,
                }
                continue;
            }
            let d = target - now;
            if d > COARSE_ABOVE || !self.precise {
                let wake = if self.precise {
                    target - COARSE_EARLY
                } else {
                    target
                };
                tokio::select! {
                    _ = tokio::time::sleep_until(wake.into()) => {}
                    _ = stop.changed() => return false,
                }
            } else if !spin {
                precise_sleep(d);
            } else if d > SPIN_BELOW {
                precise_sleep(d - SPIN_BELOW);
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// The thread's own sleep (about 50 µs late at worst, where tokio's timer is a millisecond),
/// with this worker's other tasks handed to another thread meanwhile.
/// On Linux the thread's timer slack is set to 1 µs first (the default 50 µs would make every
/// paced send up to 50 µs late), as Go's `loop.preciseSleep` does.
fn precise_sleep(d: Duration) {
    tokio::task::block_in_place(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl with PR_SET_TIMERSLACK only changes this thread's timer slack.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0);
        }
        std::thread::sleep(d)
    });
}

impl Drop for Waiter {
    fn drop(&mut self) {
        SPINNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A timerfd registered with the runtime's poller: a wait on it holds no thread, and wakes
/// within the kernel's timer precision (no timer slack applies to it).
#[cfg(target_os = "linux")]
struct Evented(tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>);

#[cfg(target_os = "linux")]
impl Evented {
    fn new() -> Option<Evented> {
        use std::os::fd::FromRawFd;
        // SAFETY: timerfd_create returns a new descriptor (or -1), owned from here on.
        let fd = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if fd < 0 {
            return None;
        }
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        // SAFETY: the AsyncFd owns the descriptor, so it is deregistered before it is closed.
        unsafe {
            tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE)
        }
        .ok()
        .map(Evented)
    }

    /// Arms the timer for `at` and waits until it fires (or returns early: the caller checks
    /// the clock). Dropped half-way, the timer stays armed and the next wait re-arms it.
    async fn wait(&self, at: Instant) -> std::io::Result<()> {
        use std::os::fd::AsRawFd;
        let d = at
            .saturating_duration_since(Instant::now())
            .max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: d.as_secs() as libc::time_t,
                tv_nsec: d.subsec_nanos() as libc::c_long,
            },
        };
        let fd = self.0.as_raw_fd();
        // SAFETY: fd is this timerfd; spec is a valid itimerspec.
        if unsafe { libc::timerfd_settime(fd, 0, &spec, std::ptr::null_mut()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut guard = self.0.readable().await?;
        let _ = guard.try_io(|fd| {
            let mut n = [0u8; 8];
            // SAFETY: reads the 8-byte expiration count into n.
            match unsafe { libc::read(fd.as_raw_fd(), n.as_mut_ptr().cast(), 8) } {
                8 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
        // The timer is one-shot and read: nothing more is due until the next wait arms it, so
        // the next wait does not find a stale readiness and go round once more.
        guard.clear_ready();
        Ok(())
    }
}

/// Elsewhere the open model waits on the runtime's timer (millisecond resolution).
#[cfg(not(target_os = "linux"))]
struct Evented;

#[cfg(not(target_os = "linux"))]
impl Evented {
    fn new() -> Option<Evented> {
        None
    }
    async fn wait(&self, _at: Instant) -> std::io::Result<()> {
        Ok(())
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Constant {
    /// Messages per second across all senders; > 0.
    pub rate: f64,
    /// Senders sharing the rate; 0 means 1.
    pub count: usize,
    /// This sender, 0-based.
    pub index: usize,
}

impl Constant {
    fn senders(&self) -> f64 {
        if self.count == 0 {
            1.0
        } else {
            self.count as f64
        }
    }

    /// Offset from the start at which message `i` of this sender is due.
    pub fn intended(&self, i: u64) -> Duration {
        let slot = i as f64 * self.senders() + self.index as f64;
        Duration::from_nanos((slot / self.rate * 1e9).ceil() as u64)
    }

    /// Offset at which the senders' schedule ends once this sender has sent `n` messages: the
    /// slot of all senders after its last message, so the group's N messages at R per second
    /// span N/R seconds (Go's `pace.Constant.After`). 0 when n is 0.
    pub fn after(&self, n: u64) -> Duration {
        if n == 0 {
            return Duration::ZERO;
        }
        let slot = (n - 1) as f64 * self.senders() + self.index as f64 + 1.0;
        Duration::from_nanos((slot / self.rate * 1e9).ceil() as u64)
    }

    /// How many of this sender's messages are due at `elapsed` since the start.
    pub fn due(&self, elapsed: Duration) -> u64 {
        let slots = elapsed.as_nanos() as f64 / 1e9 * self.rate;
        let first = self.index as f64;
        if slots < first {
            return 0;
        }
        ((slots - first) / self.senders()).floor() as u64 + 1
    }

    /// How many messages this sender sends in `d` (its share of rate*d).
    pub fn total(&self, d: Duration) -> u64 {
        if d.is_zero() {
            return 0;
        }
        self.due(d - Duration::from_nanos(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // As Go's TestChoosePrecision for a sender on its own: about BURST messages a wake-up,
    // between MIN_CHOSEN and natsperf-rust's MIN_GAP.
    #[test]
    fn chosen_precision() {
        for (rate, want) in [
            (0.0, MIN_GAP),
            (1000.0, MIN_GAP),
            (40000.0, MIN_GAP),
            (50000.0, Duration::from_micros(200)),
            (80000.0, MIN_CHOSEN),
            (1e6, MIN_CHOSEN),
        ] {
            assert_eq!(choose_precision(rate), want, "{rate} msgs/s");
        }
    }

    // Cases taken from internal/pace/pace_test.go.
    #[test]
    fn schedule() {
        let c = Constant {
            rate: 1000.0,
            count: 2,
            index: 1,
        };
        assert_eq!(c.intended(0), Duration::from_millis(1));
        assert_eq!(c.intended(1), Duration::from_millis(3));
        assert_eq!(c.due(Duration::ZERO), 0);
        assert_eq!(c.after(2), Duration::from_millis(4));
        assert_eq!(c.after(0), Duration::ZERO);
        assert_eq!(c.due(Duration::from_millis(1)), 1);
        assert_eq!(c.due(Duration::from_millis(3)), 2);
        assert_eq!(
            Constant {
                rate: 1000.0,
                count: 1,
                index: 0
            }
            .due(Duration::from_millis(10)),
            11
        );
        let one = Constant {
            rate: 100.0,
            count: 1,
            index: 0,
        };
        assert_eq!(one.total(Duration::from_secs(1)), 100);
        assert_eq!(one.intended(99), Duration::from_millis(990));
        let three: u64 = (0..3)
            .map(|k| {
                Constant {
                    rate: 1000.0,
                    count: 3,
                    index: k,
                }
                .total(Duration::from_secs(1))
            })
            .sum();
        assert_eq!(three, 1000);
    }

    // The open model's wait (a timerfd on the runtime's poller): never woken before its time,
    // planned at it, a wait dropped half-way (for an answer) leaves the planned time as it was,
    // and a stop ends a wait at once.
    #[test]
    fn evented_wait() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (tx, mut stop) = watch::channel(false);
            let mut w = Waiter::evented();
            assert!(cfg!(not(target_os = "linux")) || w.evented.is_some());
            for ms in [3, 1, 5] {
                let due = Instant::now() + Duration::from_millis(ms);
                assert!(w.until(due, &mut stop).await);
                assert!(Instant::now() >= due, "woke before its time");
                assert_eq!(w.planned(), Some(due));
            }
            let before = w.planned();
            let far = Instant::now() + Duration::from_secs(60);
            let dropped =
                tokio::time::timeout(Duration::from_millis(5), w.until(far, &mut stop)).await;
            assert!(dropped.is_err() && w.planned() == before);
            let stopper = tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                tx.send(true).unwrap();
            });
            let t = Instant::now();
            assert!(!w.until(far, &mut stop).await, "a stop ends the wait");
            assert!(t.elapsed() < Duration::from_secs(30));
            stopper.await.unwrap();
        });
    }

    // As Go's TestPlannedIsTheGroupedWakeUp: a send within the precision of the previous
    // wake-up is planned for the precision after it (its intended send time), never woken
    // before; a send on its own slot is planned at its slot.
    #[test]
    fn planned_is_the_grouped_wake_up() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let (_tx, mut stop) = watch::channel(false);
            let mut w = Waiter::new();
            w.gap = Duration::from_millis(10);
            let first = Instant::now() + Duration::from_millis(2);
            assert!(w.until(first, &mut stop).await);
            assert_eq!(w.planned(), Some(first));
            let due = first + Duration::from_millis(5);
            assert!(w.until(due, &mut stop).await);
            let planned = w.planned().unwrap();
            assert!(
                planned >= first + Duration::from_millis(10),
                "planned {:?} after the first",
                planned - first
            );
            assert!(Instant::now() >= planned, "woke before the planned wake-up");
        });
    }
}

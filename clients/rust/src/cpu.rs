//! The CPU this process spends while its clients run: the Result's `cpu`, as natsperf's Go
//! `internal/cpuuse` fills it. User plus system seconds (getrusage RUSAGE_SELF) are steady on a
//! shared machine where wall-clock rates are not, and their share of the process's cores says
//! when the client, not the server, was the bottleneck.

use serde::Serialize;
use std::time::{Duration, Instant};

/// The share of all its cores above which the process is said to have been the bottleneck
/// (Go's `cpuuse.Saturation`).
pub const SATURATION: f64 = 0.9;

/// The process's CPU time so far and when it was read.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    user: Duration,
    sys: Duration,
    at: Instant,
}

impl Sample {
    /// Reads the process's CPU time; None where getrusage is not there (the Result then has no
    /// `cpu` rather than a 0 nobody measured).
    pub fn now() -> Option<Sample> {
        let (user, sys) = usage()?;
        Some(Sample {
            user,
            sys,
            at: Instant::now(),
        })
    }

    /// What the process spent from this sample to now, its clients having handled `msgs`
    /// messages (sent plus received, warm-up included) meanwhile.
    pub fn until_now(self, msgs: i64) -> Option<Cpu> {
        Some(Cpu::between(self, Sample::now()?, msgs, cores()))
    }
}

/// The Result's `cpu`.
#[derive(Serialize, Clone, Debug)]
pub struct Cpu {
    pub user_seconds: f64,
    pub sys_seconds: f64,
    /// user + sys
    pub seconds: f64,
    pub wall_seconds: f64,
    /// The runtime's worker threads: the cores the process may keep busy (Go's GOMAXPROCS).
    pub cores: usize,
    /// seconds / (wall x cores)
    pub core_share: f64,
    pub msgs: i64,
    pub msgs_per_cpu_second: f64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saturated: bool,
    #[serde(skip)]
    from: Option<Sample>,
    #[serde(skip)]
    to: Option<Sample>,
}

impl Cpu {
    /// The process between two samples, on `cores` cores.
    fn between(from: Sample, to: Sample, msgs: i64, cores: usize) -> Cpu {
        let user = to.user.saturating_sub(from.user).as_secs_f64();
        let sys = to.sys.saturating_sub(from.sys).as_secs_f64();
        let wall = to.at.saturating_duration_since(from.at).as_secs_f64();
        let seconds = user + sys;
        let cores = cores.max(1);
        let core_share = match wall > 0.0 {
            true => seconds / wall / cores as f64,
            false => 0.0,
        };
        Cpu {
            user_seconds: user,
            sys_seconds: sys,
            seconds,
            wall_seconds: wall,
            cores,
            core_share,
            msgs,
            msgs_per_cpu_second: match seconds > 0.0 {
                true => msgs as f64 / seconds,
                false => 0.0,
            },
            saturated: core_share > SATURATION,
            from: Some(from),
            to: Some(to),
        }
    }

    /// This process over two measurements of workloads that ran side by side in it: from the
    /// earlier start to the later end, their messages added (the CPU is the process's, once).
    pub fn span(&self, other: &Cpu) -> Cpu {
        match (self.from, self.to, other.from, other.to) {
            (Some(a0), Some(a1), Some(b0), Some(b1)) => Cpu::between(
                if a0.at <= b0.at { a0 } else { b0 },
                if a1.at >= b1.at { a1 } else { b1 },
                self.msgs + other.msgs,
                self.cores.max(other.cores),
            ),
            _ => self.clone(),
        }
    }
}

/// The cores the process may keep busy: the tokio runtime's worker threads (the blocking
/// threads a precise wait hands a worker's tasks to stand in for it), else the machine's.
fn cores() -> usize {
    tokio::runtime::Handle::try_current()
        .map(|h| h.metrics().num_workers())
        .unwrap_or_else(|_| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
}

#[cfg(unix)]
fn usage() -> Option<(Duration, Duration)> {
    // SAFETY: getrusage only writes the struct it is given, which is ours and zeroed.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return None;
    }
    let d = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Some((d(ru.ru_utime), d(ru.ru_stime)))
}

#[cfg(not(unix))]
fn usage() -> Option<(Duration, Duration)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // Busy work on this thread shows as user seconds between two samples, within the wall
    // time it took (one thread: at most one core's worth), and the figures add up.
    #[cfg(unix)]
    #[test]
    fn busy_work_is_counted() {
        let from = Sample::now().expect("getrusage on unix");
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed() < Duration::from_millis(50) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        std::hint::black_box(x);
        let c = Cpu::between(from, Sample::now().unwrap(), 1000, 2);
        assert!(c.seconds > 0.0, "{c:?}");
        assert!((c.seconds - c.user_seconds - c.sys_seconds).abs() < 1e-9);
        assert!(c.wall_seconds >= 0.05, "{c:?}");
        assert!((c.core_share - c.seconds / c.wall_seconds / 2.0).abs() < 1e-9);
        assert!((c.msgs_per_cpu_second - 1000.0 / c.seconds).abs() < 1e-6);
        // Other test threads may run meanwhile: the process is bounded by its wall time on
        // every thread, not by one core.
        assert_eq!(c.saturated, c.core_share > SATURATION);
    }

    // Two overlapping windows of one process: the span runs from the first start to the last
    // end, the process's CPU counted once, the messages added.
    #[cfg(unix)]
    #[test]
    fn span_counts_the_process_once() {
        let s0 = Sample::now().unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let s1 = Sample::now().unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let s2 = Sample::now().unwrap();
        let a = Cpu::between(s0, s1, 10, 2);
        let b = Cpu::between(s0, s2, 5, 2);
        let both = b.span(&a);
        let whole = Cpu::between(s0, s2, 15, 2);
        assert_eq!(
            (both.seconds, both.wall_seconds, both.msgs),
            (whole.seconds, whole.wall_seconds, 15)
        );
    }
}

//! The clock every measurement reads: wall-clock Unix nanoseconds (comparable across
//! processes, as stamps need) advanced by the monotonic clock (never stepping back).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Wall-clock Unix nanoseconds advanced by the monotonic clock, as natsperf's `record.Clock`.
#[derive(Clone, Copy)]
pub struct Clock {
    start: Instant,
    start_wall: i64,
}

impl Clock {
    pub fn new() -> Clock {
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock after 1970")
            .as_nanos() as i64;
        Clock {
            start: Instant::now(),
            start_wall: wall,
        }
    }
    pub fn now(&self) -> i64 {
        self.start_wall + self.start.elapsed().as_nanos() as i64
    }
}

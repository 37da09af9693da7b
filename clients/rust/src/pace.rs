//! When fixed-rate senders send: the arithmetic of natsperf's Go `internal/pace`. Sender `index`
//! of `count` sends its i-th message (0-based) at `(i*count + index) / rate` after the start, and a
//! sender that wakes late sends everything that fell due, each with its own intended time, so the
//! schedule and not the sender's luck decides the send times (coordinated-omission correction).

use std::time::Duration;

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
}

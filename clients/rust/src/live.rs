//! What an agent reads of a run while it runs (the Go agent's Progress, Series and Skew):
//! each client's message count for the heartbeats, its closed intervals for the live interval
//! records, and the clock correction of another part's publishers (`clock_offsets_ns`).
//! A client writes only its own counter (a relaxed store per message, read once a second) and
//! sends one message per closed interval: no lock and no allocation per message.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// One closed interval of one client, labelled as a series file names it (`pub/1`).
pub struct LiveSlice {
    pub src: String,
    pub start: i64,
    pub msgs: i64,
    pub bytes: i64,
    pub lat: Option<String>,
}

/// One id block (a workload instance): run whole by one part, or its clients (this many in
/// the whole run) split across the parts by client range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Block {
    Whole(usize),
    Split(usize),
}

/// Which part publishes with a publisher id, and so how far its clock is from this part's:
/// the Go engine's `partClocks` (unit k, in Spec order, holding the id block `base + k*4096`).
pub struct PartClocks {
    pub base: u32,
    /// By id block.
    pub blocks: Vec<Block>,
    pub index: usize,
    pub offsets: Vec<i64>,
}

impl PartClocks {
    /// This part's clock minus the clock of the part publishing with `id`: subtracted from the
    /// latencies of that publisher's messages. 0 for an id of no known part.
    pub fn skew(&self, id: u32) -> i64 {
        let off = id.wrapping_sub(self.base) & crate::stamp::MAX_PUBLISHER;
        let (blk, idx) = ((off / 4096) as usize, (off % 4096) as i64 - 1);
        let count = self.offsets.len();
        let Some(&b) = self.blocks.get(blk) else {
            return 0;
        };
        if idx < 0 || self.index >= count {
            return 0;
        }
        let owner = match b {
            Block::Whole(q) => (q < count).then_some(q),
            Block::Split(n) if (idx as usize) < n => (0..count).find(|&p| {
                let (lo, hi) = crate::parts::range(n, p, count);
                (lo..hi).contains(&(idx as usize))
            }),
            Block::Split(_) => None,
        };
        owner.map_or(0, |q| self.offsets[self.index] - self.offsets[q])
    }
}

/// An agent run's view of its clients; the default (the command line) watches nothing.
#[derive(Clone, Default)]
pub struct Probe {
    /// The workload's group prefix in a run of several (`pub1`), for the interval labels.
    pub prefix: Option<String>,
    counters: Arc<Mutex<Vec<Arc<AtomicI64>>>>,
    series: Option<mpsc::UnboundedSender<LiveSlice>>,
    clocks: Option<Arc<PartClocks>>,
}

/// What a Recorder keeps of its Probe.
pub struct Tap {
    pub count: Arc<AtomicI64>,
    pub series: Option<(String, mpsc::UnboundedSender<LiveSlice>)>,
    pub clocks: Option<Arc<PartClocks>>,
}

impl Probe {
    /// A run's probe: `series` receives the closed intervals when the prepare asked for them.
    pub fn new(
        series: Option<mpsc::UnboundedSender<LiveSlice>>,
        clocks: Option<Arc<PartClocks>>,
    ) -> Probe {
        Probe {
            prefix: None,
            counters: Arc::default(),
            series,
            clocks,
        }
    }

    /// The same run's probe for one workload of it.
    pub fn for_unit(&self, prefix: Option<String>) -> Probe {
        Probe {
            prefix,
            ..self.clone()
        }
    }

    /// A tap for client `index` (global, 0-based) of group `group`.
    pub fn tap(&self, group: &str, index: usize) -> Tap {
        let count = Arc::new(AtomicI64::new(0));
        self.counters.lock().unwrap().push(count.clone());
        let src = match &self.prefix {
            Some(p) => format!("{p}/{group}/{}", index + 1),
            None => format!("{group}/{}", index + 1),
        };
        Tap {
            count,
            series: self.series.clone().map(|s| (src, s)),
            clocks: self.clocks.clone(),
        }
    }

    /// Messages handled so far by every client tapped (the heartbeat's `msgs`).
    pub fn total(&self) -> i64 {
        let c = self.counters.lock().unwrap();
        c.iter().map(|a| a.load(Ordering::Relaxed)).sum()
    }

    /// Drops the series sender, so its receiver ends once every client's is dropped too.
    pub fn without_series(&self) -> Probe {
        Probe {
            series: None,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // As internal/engine's partClocks: ids base + block*4096 + j + 1; client j of a block of
    // n clients belongs to the part whose range holds j.
    #[test]
    fn skew_by_publisher_part() {
        let c = PartClocks {
            base: 8192,
            blocks: vec![Block::Split(3), Block::Split(4), Block::Whole(2)],
            index: 1,
            offsets: vec![-1_000, 5_000_000, 70],
        };
        assert_eq!(c.skew(8192 + 1), 5_000_000 - -1_000); // block 0 client 0: part 0
        assert_eq!(c.skew(8192 + 2), 0); // client 1 of 3: part 1, this one
        assert_eq!(c.skew(8192 + 3), 5_000_000 - 70); // client 2: part 2
        assert_eq!(c.skew(8192 + 4096 + 1), 5_000_000 - -1_000); // block 1 client 0 of 4: part 0
        assert_eq!(c.skew(8192 + 4096 + 4), 5_000_000 - 70); // client 3 of 4: part 2
        assert_eq!(c.skew(8192 + 4096 + 5), 0); // beyond the block's clients
        assert_eq!(c.skew(8192 + 2 * 4096 + 3), 5_000_000 - 70); // a whole instance: its part
        assert_eq!(c.skew(8192 + 3 * 4096 + 1), 0); // no such block
        assert_eq!(c.skew(7), 0); // another base
    }

    #[test]
    fn taps_count_and_label() {
        let (tx, _rx) = mpsc::unbounded_channel();
        let p = Probe::new(Some(tx), None).for_unit(Some("pub1".into()));
        let a = p.tap("pub", 2);
        let b = p.tap("pub", 3);
        a.count.store(5, Ordering::Relaxed);
        b.count.store(7, Ordering::Relaxed);
        assert_eq!(p.total(), 12);
        assert_eq!(a.series.as_ref().unwrap().0, "pub1/pub/3");
        assert!(Probe::default().tap("sub", 0).series.is_none());
    }
}

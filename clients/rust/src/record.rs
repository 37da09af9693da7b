//! One client's measurements: counts, HdrHistograms of nanoseconds (1 ns to 1 h, 3 significant
//! digits, as natsperf's Go `internal/histo`) and, for receivers, per-publisher sequence
//! accounting as `internal/record`: a publisher's lost messages are the gaps below the highest
//! sequence seen; the tail beyond it counts as lost only against an expected total.
//! Recording allocates nothing per message (a tracker per new publisher only) and takes no lock.

use crate::hist::{new_histogram, record_ns};
use hdrhistogram::Histogram;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// How far back a tracker tells a late message from a duplicate (as Go's `window`).
const WINDOW: u64 = 1 << 16;

/// The sequence numbers of one publisher.
pub struct SeqTracker {
    pub highest: u64,
    pub distinct: i64,
    pub duplicated: i64,
    pub out_of_order: i64,
    /// This part's clock minus the publisher's part's (`live::PartClocks::skew`): subtracted
    /// from its messages' latencies.
    pub skew: i64,
    seen: Box<[u64; (WINDOW / 64) as usize]>,
}

impl Default for SeqTracker {
    fn default() -> Self {
        SeqTracker {
            highest: 0,
            distinct: 0,
            duplicated: 0,
            out_of_order: 0,
            skew: 0,
            seen: Box::new([0; (WINDOW / 64) as usize]),
        }
    }
}

impl SeqTracker {
    fn bit(seq: u64) -> (usize, u64) {
        let i = seq % WINDOW;
        ((i / 64) as usize, 1 << (i % 64))
    }

    pub fn observe(&mut self, seq: u64) {
        if seq > self.highest {
            if seq - self.highest > WINDOW {
                self.seen.fill(0);
            } else {
                for s in self.highest + 1..seq {
                    let (w, m) = Self::bit(s);
                    self.seen[w] &= !m;
                }
            }
            let (w, m) = Self::bit(seq);
            self.seen[w] |= m;
            self.highest = seq;
            self.distinct += 1;
        } else if self.highest - seq >= WINDOW {
            // Too old to tell a duplicate from a late arrival: out of order.
            self.out_of_order += 1;
            self.distinct += 1;
        } else {
            let (w, m) = Self::bit(seq);
            if self.seen[w] & m != 0 {
                self.duplicated += 1;
                return;
            }
            self.seen[w] |= m;
            self.out_of_order += 1;
            self.distinct += 1;
        }
    }

    /// Sequence numbers up to the highest seen that never arrived.
    pub fn gaps(&self) -> i64 {
        (self.highest as i64 - self.distinct).max(0)
    }
}

#[derive(Default, Clone, Copy, Debug)]
pub struct Events {
    pub errors: i64,
    pub timeouts: i64,
    pub slow_consumers: i64,
    /// The open model's bound on requests awaiting replies, and the sends that waited at it
    /// (Go's `Events.MaxInflight` and `InflightFull`).
    pub max_inflight: i64,
    pub inflight_full: i64,
}

/// One closed interval of a client's series (Go's `record.Slice`): its start (Unix ns, aligned
/// to the run's start), counts, and its latency histogram encoded once when it closed.
pub struct Slice {
    pub start: i64,
    pub msgs: i64,
    pub bytes: i64,
    /// The interval's latencies, encoded as in the Result (a long run keeps no histograms).
    pub lat: Option<String>,
}

/// One client's recorder.
pub struct Recorder {
    pub msgs: i64,
    pub bytes: i64,
    /// Unix ns of the client's first and last operation (0: none yet).
    pub begin: i64,
    pub last: i64,
    pub lat: Option<Histogram<u64>>,
    pub uncorr: Option<Histogram<u64>>,
    /// A fixed-rate sender's send lateness (actual minus intended send time), made at its
    /// first paced send past the warm-up: the generator's own check (Go's `Recorder.late`).
    pub lateness: Option<Histogram<u64>>,
    /// Whether the client sends on a fixed-rate schedule (`late` was called).
    paced: bool,
    /// The intended times (Unix ns) of a paced sender's first and last sends past the
    /// warm-up, the last one's lateness, and their number: where its measured span starts
    /// (`finish`, as Go's `Recorder.start`).
    late_from: i64,
    late_to: i64,
    late_last: i64,
    late_n: i64,
    /// An open-model client (Go's `Recorder.Answers`): its span is its answers', from the
    /// first measured to the last, so the response time of its last answers does not count
    /// against its rate.
    pub answers: bool,
    /// Every publisher's sequence tracker but the current one's (`cur`) until `finish`.
    pub trackers: HashMap<u32, SeqTracker>,
    /// The tracker of the publisher of the last message, out of the map: no map lookup per
    /// message unless the publisher changes (as Go's lastPub/lastTrk).
    cur: Option<(u32, SeqTracker)>,
    /// Distinct stamped messages plus unstamped ones, kept as they arrive.
    unique: i64,
    pub unstamped: i64,
    pub events: Events,
    /// Longest time between two consecutive operations, and when it ended (Unix ns).
    pub gap: i64,
    pub gap_end: i64,
    /// The previous operation (Unix ns), warm-up included, for the gap.
    prev: i64,
    /// Operations before `warmup_end` (Unix ns; 0: no warm-up), counted in `msgs` only.
    pub warmup: i64,
    pub warmup_end: i64,
    /// The per-interval series: latencies are recorded into the open interval's histogram
    /// and the run's (two histogram writes per message, so closing an interval adds nothing).
    interval: i64,
    epoch: i64,
    iv_start: i64,
    iv_msgs: i64,
    iv_bytes: i64,
    iv_lat: Option<Histogram<u64>>,
    pub intervals: Vec<Slice>,
    /// Closed intervals after the first still encoding (`close_interval`), in order: put into
    /// `intervals` by `finish`.
    closed: Vec<Closed>,
    /// An agent's view of this client (None on the command line).
    tap: Option<crate::live::Tap>,
}

/// A closed interval: ready, or its latency histogram still encoding in the blocking pool
/// (None once it was streamed).
enum Closed {
    Ready(Slice),
    Encoding(tokio::task::JoinHandle<Option<Slice>>),
}

/// Sends a closed slice to the agent's live series when there is one (streamed, a slice is
/// not kept, as Go's Recorder with a Sink: memory stays flat over a long run, and the series
/// lives where it was sent); the slice back when it is to be kept.
fn stream(
    series: Option<(
        String,
        tokio::sync::mpsc::UnboundedSender<crate::live::LiveSlice>,
    )>,
    mut s: Slice,
) -> Option<Slice> {
    let Some((src, tx)) = series else {
        return Some(s);
    };
    let sent = tx.send(crate::live::LiveSlice {
        src,
        start: s.start,
        msgs: s.msgs,
        bytes: s.bytes,
        lat: s.lat.take(),
    });
    match sent {
        Ok(()) => None,
        Err(e) => {
            s.lat = e.0.lat; // nobody listens: keep it
            Some(s)
        }
    }
}

impl Recorder {
    /// A recorder whose series has slices `interval` wide, aligned to `epoch` (Unix ns).
    pub fn new(latency: bool, interval: std::time::Duration, epoch: i64) -> Recorder {
        Recorder {
            msgs: 0,
            bytes: 0,
            begin: 0,
            last: 0,
            lat: latency.then(new_histogram),
            uncorr: None,
            lateness: None,
            paced: false,
            late_from: 0,
            late_to: 0,
            late_last: 0,
            late_n: 0,
            answers: false,
            trackers: HashMap::new(),
            cur: None,
            unique: 0,
            unstamped: 0,
            events: Events::default(),
            gap: 0,
            gap_end: 0,
            prev: 0,
            warmup: 0,
            warmup_end: 0,
            interval: (interval.as_nanos() as i64).max(1),
            epoch,
            iv_start: 0,
            iv_msgs: 0,
            iv_bytes: 0,
            iv_lat: latency.then(new_histogram),
            intervals: Vec::new(),
            closed: Vec::new(),
            tap: None,
        }
    }

    /// Reports to an agent's probe as client `index` (global, 0-based) of group `group`:
    /// its count, its closed intervals, its publishers' clock skew.
    pub fn with_probe(mut self, probe: &crate::live::Probe, group: &str, index: usize) -> Recorder {
        self.tap = Some(probe.tap(group, index));
        self
    }

    /// Closes the open interval and opens the one holding `now`: once per interval.
    fn roll(&mut self, now: i64) {
        self.close_interval();
        let off = (now - self.epoch).max(0);
        self.iv_start = self.epoch + off / self.interval * self.interval;
    }

    fn close_interval(&mut self) {
        if self.iv_msgs == 0 {
            return;
        }
        let mut s = Slice {
            start: self.iv_start,
            msgs: self.iv_msgs,
            bytes: self.iv_bytes,
            lat: None,
        };
        self.iv_msgs = 0;
        self.iv_bytes = 0;
        let series = self.tap.as_ref().and_then(|t| t.series.clone());
        if let Some(iv) = self.iv_lat.as_mut() {
            if !iv.is_empty() {
                // Encoding the interval's histogram (and freeing it) is a burst of CPU that,
                // on the client's task, held a paced sender and the answers it awaits back
                // once an interval: on a busy 2-core host its send lateness P99 was 18-34 ms
                // at 900/s, 3-7 ms without it. It goes to the blocking pool; the task only
                // swaps in a fresh histogram.
                let full = std::mem::replace(iv, new_histogram());
                match tokio::runtime::Handle::try_current() {
                    Ok(rt) => {
                        let h = rt.spawn_blocking(move || {
                            s.lat = Some(crate::hist::encode(&full));
                            drop(full);
                            stream(series, s)
                        });
                        self.closed.push(Closed::Encoding(h));
                        return;
                    }
                    Err(_) => s.lat = Some(crate::hist::encode(&full)),
                }
            }
        }
        if let Some(s) = stream(series, s) {
            match self.closed.is_empty() {
                true => self.intervals.push(s),
                false => self.closed.push(Closed::Ready(s)), // after those still encoding
            }
        }
    }

    /// Closes the series and puts the current tracker back; call once the client is done,
    /// before reading the histograms and trackers.
    pub fn finish(&mut self) {
        self.close_interval();
        for c in std::mem::take(&mut self.closed) {
            let s = match c {
                Closed::Ready(s) => Some(s),
                // Encoded in the blocking pool long since (an interval ago, at the last
                // close only a moment): the wait is short and never for this task's work.
                Closed::Encoding(h) => futures::executor::block_on(h).ok().flatten(),
            };
            self.intervals.extend(s);
        }
        if !self.answers && self.counted() > 0 && self.late_n > 0 && self.begin != 0 {
            if self.warmup_end == 0 {
                // A paced sender's span starts at its first slot: a late first send is charged.
                self.begin = self.begin.min(self.late_from);
            } else {
                // A sender behind its schedule at the warm-up's end sends the slots it owes
                // after it, faster than its rate: they are counted, and from its first
                // measured message the rate would exceed the one asked. From its first
                // measured slot the rate is the schedule's when it caught up; one still
                // behind at its end starts that much later (never later than its first
                // measured message): its rate is what it managed.
                // How far behind: how far its end is past its last slot's own (the mean gap
                // of its measured slots), at most its last send's lateness, so an end on the
                // schedule after a slightly late last send keeps the rate at most the one asked.
                let mut past = self.last - self.late_to;
                if self.late_n > 1 {
                    past -= (self.late_to - self.late_from) / (self.late_n - 1);
                }
                let behind = self.late_last.min(past).max(0);
                self.begin = self.begin.min(self.late_from + behind);
            }
        }
        if let Some(t) = &self.tap {
            t.count.store(self.msgs, Ordering::Relaxed);
        }
        if let Some((id, t)) = self.cur.take() {
            self.trackers.insert(id, t);
        }
    }

    /// The tracker of publisher `id`, made current.
    fn tracker(&mut self, id: u32) -> &mut SeqTracker {
        if self.cur.as_ref().map(|c| c.0) != Some(id) {
            if let Some((old, t)) = self.cur.take() {
                self.trackers.insert(old, t);
            }
            let t = self.trackers.remove(&id).unwrap_or_else(|| {
                let mut t = SeqTracker::default();
                if let Some(c) = self.tap.as_ref().and_then(|t| t.clocks.as_ref()) {
                    t.skew = c.skew(id);
                }
                t
            });
            self.cur = Some((id, t));
        }
        &mut self.cur.as_mut().expect("just set").1
    }

    /// Counts one operation; false when it fell within the warm-up (counted in `msgs` and
    /// `warmup` only, as Go's `Recorder.count`).
    fn op(&mut self, now: i64, size: usize) -> bool {
        self.op_at(now, now, size)
    }

    /// `op` for an operation left out as the warm-up's when `cut` (a paced operation's send)
    /// is before its end.
    fn op_at(&mut self, now: i64, cut: i64, size: usize) -> bool {
        if self.prev != 0 && now - self.prev > self.gap {
            self.gap = now - self.prev;
            self.gap_end = now;
        }
        self.prev = now;
        self.msgs += 1;
        if let Some(t) = &self.tap {
            t.count.store(self.msgs, Ordering::Relaxed); // this client's own counter
        }
        if cut < self.warmup_end {
            self.warmup += 1;
            return false;
        }
        if self.begin == 0 || self.begin < self.warmup_end {
            self.begin = now;
        }
        self.last = now;
        self.bytes += size as i64;
        if now - self.iv_start >= self.interval {
            self.roll(now);
        }
        self.iv_msgs += 1;
        self.iv_bytes += size as i64;
        true
    }

    /// Leaves what happens before `end` (Unix ns; 0: nothing) out of the figures: --warmup.
    pub fn with_warmup(mut self, end: i64) -> Recorder {
        self.warmup_end = end;
        self
    }

    /// Operations past the warm-up: what the Result reports.
    pub fn counted(&self) -> i64 {
        self.msgs - self.warmup
    }

    /// A message sent (publishers) at `now`, Unix ns.
    pub fn sent(&mut self, now: i64, size: usize) {
        self.op(now, size);
    }

    /// How late a fixed-rate sender sent a message: its actual send time (`sent`, Unix ns)
    /// minus the intended one, as Go's `Recorder.Late` records it (a clock read a hair early
    /// is on time). A send before the warm-up's end is left out, as its message is, so the
    /// lateness describes the measured sends only. A sender that cannot keep its schedule is
    /// the bottleneck, not the server. The histogram is made at the first call past the
    /// warm-up, once per client.
    pub fn late(&mut self, intended: i64, sent: i64) {
        self.paced = true;
        if sent < self.warmup_end {
            return;
        }
        if self.late_n == 0 {
            self.late_from = intended;
        }
        self.late_to = intended;
        self.late_last = sent - intended;
        self.late_n += 1;
        record_ns(
            self.lateness.get_or_insert_with(new_histogram),
            (sent - intended).max(0),
        );
    }

    /// A round trip done: latency from the intended send and from the actual one. A paced
    /// operation belongs to the warm-up when it was sent in it (`now - actual`), as its send
    /// lateness does (`late`), so the lateness counts one value per operation counted.
    pub fn op_corrected(&mut self, now: i64, size: usize, corrected: i64, actual: i64) {
        let cut = if self.paced { now - actual } else { now };
        if !self.op_at(now, cut, size) {
            return;
        }
        if let (Some(h), Some(all)) = (self.iv_lat.as_mut(), self.lat.as_mut()) {
            record_ns(h, corrected);
            record_ns(all, corrected);
            if corrected != actual {
                record_ns(self.uncorr.get_or_insert_with(new_histogram), actual);
            }
        }
    }

    /// A message received at `now`: counts, end-to-end latency and sequence accounting from its
    /// stamp (one sent within `stamp::WINDOW` of `now`; other payloads count as unstamped).
    /// Within the warm-up only the sequence accounting sees it.
    pub fn received(&mut self, now: i64, data: &[u8]) {
        let measured = self.op(now, data.len());
        match crate::stamp::get(data).filter(|s| crate::stamp::current(s.send_nanos, now)) {
            None => {
                self.unstamped += 1;
                self.unique += 1;
            }
            Some(s) => {
                let t = self.tracker(s.publisher);
                let before = t.distinct;
                t.observe(s.seq);
                let skew = t.skew;
                self.unique += t.distinct - before;
                if !measured {
                    return;
                }
                if let (Some(h), Some(all)) = (self.iv_lat.as_mut(), self.lat.as_mut()) {
                    record_ns(h, now - s.send_nanos - skew);
                    record_ns(all, now - s.send_nanos - skew);
                    if s.actual_nanos > 0 {
                        record_ns(
                            self.uncorr.get_or_insert_with(new_histogram),
                            now - s.actual_nanos - skew,
                        );
                    }
                }
            }
        }
    }

    /// Distinct stamped messages seen plus unstamped ones: the client's progress towards its share.
    pub fn progress(&self) -> i64 {
        self.unique
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The same cases as TestSeqTracker in internal/record/record_test.go.
    #[test]
    fn tracker() {
        let w = WINDOW;
        let wi = WINDOW as i64;
        // name, sequence numbers, then the gaps, duplicates, out-of-order and distinct expected.
        type Case<'a> = (&'a str, &'a [u64], i64, i64, i64, i64);
        let cases: &[Case] = &[
            ("in order", &[1, 2, 3, 4], 0, 0, 0, 4),
            ("gap", &[1, 2, 5], 2, 0, 0, 3),
            ("duplicate", &[1, 2, 2, 3, 1], 0, 2, 0, 3),
            ("reordered", &[1, 3, 2, 4], 0, 0, 1, 4),
            ("late fills gap", &[1, 4, 2], 1, 0, 1, 3),
            ("huge jump", &[1, w * 3, w * 3 - 1], wi * 3 - 3, 0, 1, 3),
            ("too old", &[w * 2, 1], wi * 2 - 2, 0, 1, 2),
            (
                "ring reuse is not a duplicate",
                &[1, w + 1, w + 2],
                wi - 1,
                0,
                0,
                3,
            ),
        ];
        for (name, seqs, gaps, dup, ooo, dist) in cases {
            let mut t = SeqTracker::default();
            for &s in *seqs {
                t.observe(s);
            }
            assert_eq!(
                (t.gaps(), t.duplicated, t.out_of_order, t.distinct),
                (*gaps, *dup, *ooo, *dist),
                "{name}"
            );
        }
    }

    #[test]
    fn received_counts_latency_and_losses() {
        let mut r = Recorder::new(true, std::time::Duration::from_secs(1), 0);
        let mut buf = vec![0u8; 32];
        for seq in [1u64, 2, 4, 4] {
            crate::stamp::put_ext(&mut buf, 7, seq, 1_000, 1_500);
            r.received(3_000, &buf);
        }
        r.received(3_000, b"short");
        r.finish();
        let t = &r.trackers[&7];
        assert_eq!((t.gaps(), t.duplicated, r.unstamped, r.msgs), (1, 1, 1, 5));
        assert_eq!(r.lat.as_ref().unwrap().max(), 2_000);
        assert_eq!(r.uncorr.as_ref().unwrap().max(), 1_500);
    }

    // As TestRecorderForeignPayloadIsUnstamped: 128 'x' bytes and JSON decode as stamps of
    // the year 2245; they are unstamped, not billions lost.
    #[test]
    fn foreign_payload_is_unstamped() {
        let now = 1_763_850_000_000_000_000i64;
        let mut r = Recorder::new(true, std::time::Duration::from_secs(1), now);
        let text = vec![b'x'; 128];
        let json = br#"{"order":17,"item":"natsperf","qty":3}"#;
        for i in 0..100 {
            r.received(now + i, &text);
            r.received(now + i, json);
        }
        let mut buf = vec![0u8; 16];
        crate::stamp::put(&mut buf, 9, 1, now - 1_000_000);
        r.received(now, &buf);
        crate::stamp::put(&mut buf, 9, 2, now + 2 * crate::stamp::WINDOW);
        r.received(now, &buf);
        r.finish();
        let t = &r.trackers[&9];
        assert_eq!((r.unstamped, r.trackers.len()), (201, 1));
        assert_eq!((t.gaps(), t.duplicated, t.distinct), (0, 0, 1));
        let h = r.lat.as_ref().unwrap();
        assert!(h.equivalent(h.max(), 1_000_000), "latency max {}", h.max());
    }

    // As TestSeriesLatencyAndBound in internal/record: slices aligned to the start, each with
    // its own latencies, adding up to the run's.
    #[test]
    fn series_slices() {
        let s = 1_000_000_000i64;
        let epoch = 10 * s;
        let mut r = Recorder::new(true, std::time::Duration::from_secs(1), epoch);
        let mut buf = vec![0u8; 16];
        // 3 messages in [0s,1s) at 1 ms latency, none in [1s,2s), 2 in [2s,3s) at 5 ms.
        let at = [(epoch + s / 10, 1), (epoch + s / 2, 2), (epoch + s - 1, 3)];
        for (now, seq) in at {
            crate::stamp::put(&mut buf, 1, seq, now - 1_000_000);
            r.received(now, &buf);
        }
        for (now, seq) in [(epoch + 2 * s, 4), (epoch + 2 * s + s / 2, 5)] {
            crate::stamp::put(&mut buf, 1, seq, now - 5_000_000);
            r.received(now, &buf);
        }
        r.finish();
        let got: Vec<(i64, i64, i64)> = r
            .intervals
            .iter()
            .map(|x| (x.start - epoch, x.msgs, x.bytes))
            .collect();
        assert_eq!(got, vec![(0, 3, 48), (2 * s, 2, 32)]);
        let max = |h: &Option<String>| crate::hist::decode(h.as_ref().unwrap()).max();
        assert!((999_000..=1_001_000).contains(&max(&r.intervals[0].lat)));
        assert!((4_990_000..=5_010_000).contains(&max(&r.intervals[1].lat)));
        assert_eq!(r.lat.as_ref().unwrap().len(), 5);
    }

    // An agent's probe: the client's count as it goes, each closed interval sent as it
    // closes, and another part's publishers' latencies corrected by the offsets' difference
    // (this part's clock 5 ms ahead of part 0's: 5 ms less than the clocks say).
    #[test]
    fn probe_counts_series_and_skew() {
        let s = 1_000_000_000i64;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let clocks = crate::live::PartClocks {
            base: 4096,
            blocks: vec![crate::live::Block::Split(2)],
            index: 1,
            offsets: vec![0, 5_000_000],
        };
        let probe = crate::live::Probe::new(Some(tx), Some(std::sync::Arc::new(clocks)));
        let mut r =
            Recorder::new(true, std::time::Duration::from_secs(1), 0).with_probe(&probe, "sub", 1);
        let mut buf = vec![0u8; 16];
        // Publisher 4097 is client 0 of 2: part 0. 4098 is client 1: this part, no correction.
        crate::stamp::put(&mut buf, 4097, 1, s / 10 - 7_000_000);
        r.received(s / 10, &buf);
        crate::stamp::put(&mut buf, 4098, 1, s / 10 - 1_000_000);
        r.received(s / 10, &buf);
        assert_eq!(probe.total(), 2);
        assert!(rx.try_recv().is_err(), "no interval closed yet");
        crate::stamp::put(&mut buf, 4097, 2, s + s / 10 - 9_000_000);
        r.received(s + s / 10, &buf);
        let first = rx
            .try_recv()
            .expect("the first interval, sent as the second opened");
        assert_eq!(
            (first.src.as_str(), first.start, first.msgs, first.bytes),
            ("sub/2", 0, 2, 32)
        );
        let h = crate::hist::decode(first.lat.as_ref().unwrap());
        assert!(
            (1_999_000..=2_001_000).contains(&h.max()),
            "7 ms - 5 ms: {}",
            h.max()
        );
        assert!(
            (999_000..=1_001_000).contains(&h.min()),
            "same part: {}",
            h.min()
        );
        r.finish();
        let second = rx.try_recv().expect("the last interval, at finish");
        assert!(r.intervals.is_empty(), "streamed slices are not kept");
        assert_eq!((second.start, second.msgs), (s, 1));
        let h = crate::hist::decode(second.lat.as_ref().unwrap());
        assert!(
            (3_990_000..=4_010_000).contains(&h.max()),
            "9 ms - 5 ms: {}",
            h.max()
        );
        assert_eq!(probe.total(), 3);
    }

    // Publishers interleaved: the current tracker swaps in and out of the map.
    #[test]
    fn interleaved_publishers() {
        let mut r = Recorder::new(false, std::time::Duration::from_secs(1), 0);
        let mut buf = vec![0u8; 16];
        for (publisher, seq) in [(1u32, 1u64), (2, 1), (1, 2), (2, 3), (1, 2), (3, 1), (1, 4)] {
            crate::stamp::put(&mut buf, publisher, seq, 1);
            r.received(10, &buf);
        }
        assert_eq!(r.progress(), 6); // one duplicate
        r.finish();
        let got: Vec<(i64, i64, i64)> = [1, 2, 3]
            .iter()
            .map(|p| {
                let t = &r.trackers[p];
                (t.distinct, t.gaps(), t.duplicated)
            })
            .collect();
        assert_eq!(got, vec![(3, 1, 1), (2, 1, 0), (1, 0, 0)]);
    }

    // Allocations made on this thread (the counting allocator below): a recording path that
    // allocates per message shows here, whatever the other test threads do.
    use std::alloc::{GlobalAlloc, Layout, System};
    struct Counting;
    thread_local!(static ALLOCS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) });
    // SAFETY: every call is passed on to the system allocator unchanged; counting touches a
    // const-initialised thread-local Cell, which allocates nothing.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
            System.alloc(l)
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            System.dealloc(p, l)
        }
    }
    #[global_allocator]
    static COUNTING: Counting = Counting;
    fn allocs() -> u64 {
        ALLOCS.with(|c| c.get())
    }

    // A fixed-rate sender's lateness: a value per paced send, a clock read early counted as on
    // time, the histogram made at the first one and nothing allocated per message after it.
    #[test]
    fn lateness_recorded_without_allocating() {
        let mut r = Recorder::new(false, std::time::Duration::from_secs(1), 0);
        assert!(r.lateness.is_none(), "an unpaced sender has no lateness");
        let first = allocs();
        r.late(500, 0);
        assert!(
            allocs() > first,
            "the histogram, made at the first call, is counted"
        );
        let mut most = 0;
        let before = allocs();
        for i in 0..10_000i64 {
            let late = i * 7_919 % 5_000_000;
            most = most.max(late);
            r.sent(1_000 + i, 16);
            r.late(1_000 + i - late, 1_000 + i);
        }
        assert_eq!(allocs() - before, 0, "allocations while recording lateness");
        let h = r.lateness.as_ref().unwrap();
        assert_eq!(
            (h.len(), h.min()),
            (10_001, 1),
            "the early read is on time (1 ns, the lowest)"
        );
        assert!(
            h.equivalent(h.max(), most as u64),
            "max {} want {most}",
            h.max()
        );
    }

    // As Go's TestWarmupLeavesOutLatenessAndKeepsRate: 1,000 msgs/s for 300 ms after a
    // 100 ms warm-up, with stalls of 20 ms within it (slots 40..59 sent at 60 ms), 10 ms across
    // its end (slots 95..104 sent at 105 ms) and 5 ms after it (200..204 at 205 ms); as a
    // publisher and as a requester answered 300 us after each send. Past the warm-up: one
    // lateness per message counted, its 20 ms stall left out, and the span from the slot of
    // the first message counted, so the rate is the schedule's.
    #[test]
    fn warmup_leaves_out_lateness_and_keeps_rate() {
        let ms = 1_000_000i64;
        let epoch = 1_000_000_000_000_000_000i64;
        let sent_at = |k: i64| match k {
            40..=59 => 60 * ms,
            95..=104 => 105 * ms,
            200..=204 => 205 * ms,
            _ => k * ms,
        };
        // 7 ms replies: the requests sent at 93 and 94 ms are answered after the warm-up;
        // sent in it, they are left out with their lateness.
        for reply in [0i64, 300_000, 7_000_000] {
            let mut r = Recorder::new(true, std::time::Duration::from_secs(1), epoch)
                .with_warmup(epoch + 100 * ms);
            for k in 0..300i64 {
                let (intended, sent) = (epoch + k * ms, epoch + sent_at(k));
                r.late(intended, sent);
                if reply == 0 {
                    r.sent(sent, 16);
                } else {
                    let now = sent + reply;
                    r.op_corrected(now, 16, now - intended, now - sent);
                }
            }
            r.last = r.last.max(epoch + 300 * ms); // paced_span: the slot after the last
            r.finish();
            let h = r.lateness.as_ref().expect("lateness");
            assert_eq!((r.counted(), h.len()), (205, 205), "reply {reply}");
            assert!(
                h.equivalent(h.max(), 10 * ms as u64),
                "max {} want the 10 ms owed across the warm-up's end",
                h.max()
            );
            assert_eq!(r.begin, epoch + 95 * ms, "the slot of the first counted");
            let rate = r.counted() as f64 / ((r.last - r.begin) as f64 / 1e9);
            // Answered 7 ms later, the span ends at the last reply, after the schedule's end:
            // below the rate then, never above it.
            assert!(
                rate <= 1000.0 + 1e-6 && (reply > ms || rate >= 1000.0 - 1e-6),
                "rate {rate}"
            );
        }
    }

    // As Go's TestWarmupBehindScheduleRateIsWhatItSent: a sender at half its rate (slot k at
    // k ms, sent at 2k ms) past a 100 ms warm-up: its rate is what it sent over the time it
    // took (250 messages from 100 to 598 ms), not over the slots they had (from 50 ms).
    #[test]
    fn warmup_behind_schedule_rate_is_what_it_sent() {
        let ms = 1_000_000i64;
        let epoch = 1_000_000_000_000_000_000i64;
        let mut r = Recorder::new(false, std::time::Duration::from_secs(1), epoch)
            .with_warmup(epoch + 100 * ms);
        for k in 0..300i64 {
            r.late(epoch + k * ms, epoch + 2 * k * ms);
            r.sent(epoch + 2 * k * ms, 16);
        }
        r.last = r.last.max(epoch + 300 * ms);
        r.finish();
        assert_eq!(
            (r.counted(), r.lateness.as_ref().unwrap().len()),
            (250, 250)
        );
        assert_eq!((r.begin, r.last), (epoch + 100 * ms, epoch + 598 * ms));
    }

    // As Go's warm-up: messages before its end count for the sequences only.
    #[test]
    fn warmup_left_out() {
        let mut r = Recorder::new(true, std::time::Duration::from_secs(1), 0).with_warmup(1_000);
        let mut buf = vec![0u8; 16];
        for (now, seq) in [(500, 1u64), (900, 2), (1_000, 3), (1_500, 5)] {
            crate::stamp::put(&mut buf, 1, seq, now - 100);
            r.received(now, &buf);
        }
        r.finish();
        assert_eq!((r.msgs, r.counted(), r.bytes, r.begin), (4, 2, 32, 1_000));
        assert_eq!(r.lat.as_ref().unwrap().len(), 2);
        assert_eq!((r.progress(), r.trackers[&1].gaps()), (4, 1));
    }
}

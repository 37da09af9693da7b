//! The Result document in natsperf's JSON format (`natsperf.result/v2`, see
//! `schema/result.schema.json` and `docs/result-format.md`): only the parts the Rust client
//! fills. Histograms are HdrHistogram's standard V2 compressed encoding in base64, which
//! hdrhistogram-go (and so natsperf's `histo.Decode`) reads.

use crate::hist::{self, DIGITS};
use crate::record::Recorder;
use hdrhistogram::Histogram;
use serde::Serialize;

pub const SCHEMA: &str = "natsperf.result/v2";

/// The percentile table of every Result (natsperf's `histo.Percentiles`).
pub const PERCENTILES: [f64; 13] = [
    10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 99.99999, 100.0,
];

#[derive(Serialize)]
pub struct ResultDoc {
    pub schema: &'static str,
    pub tool: Tool,
    pub command: String,
    pub settings: serde_json::Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<Server>,
    pub host: Host,
    pub start: String,
    pub end: String,
    pub stop: Stop,
    pub groups: Vec<Group>,
    /// JetStream: the streams after the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamState>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What the process spent while the clients ran (None where getrusage is not there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::cpu::Cpu>,
}

impl ResultDoc {
    /// A run's Result: natsperf-rust's tool and host, no streams, warnings or CPU yet.
    pub fn new(
        command: &str,
        settings: serde_json::Value,
        epoch: i64,
        end: i64,
        stop: Stop,
        groups: Vec<Group>,
    ) -> ResultDoc {
        ResultDoc {
            schema: SCHEMA,
            tool: Tool::this(),
            command: command.into(),
            settings,
            servers: Vec::new(),
            host: Host::this(),
            start: rfc3339(epoch),
            end: rfc3339(end),
            stop,
            groups,
            streams: Vec::new(),
            warnings: Vec::new(),
            cpu: None,
        }
    }
}

/// `settings.client`: the library and the server the clients connected to.
pub fn client_settings(info: &async_nats::ServerInfo) -> serde_json::Value {
    serde_json::json!({
        "library": "async-nats",
        "version": crate::conn::ASYNC_NATS_VERSION,
        "server": { "name": info.server_name, "id": info.server_id, "version": info.version },
    })
}

/// A stream as the server reported it after the run (the Result's `StreamState`).
#[derive(Serialize, Default)]
pub struct StreamState {
    pub name: String,
    /// The KV bucket the stream holds (kv kinds only).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub bucket: String,
    pub storage: String,
    pub replicas: usize,
    pub messages: u64,
    pub bytes: u64,
    /// "s2" or "none" from the stream's configuration (kv kinds only, so far).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub compression: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub created_by_natsperf: bool,
    #[serde(skip_serializing_if = "is_zero")]
    pub published: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub msg_size: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub expected_bytes: i64,
    #[serde(skip_serializing_if = "is_zero_u")]
    pub stored_bytes: u64,
}

#[derive(Serialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// The Go version of a natsperf build; empty here (the Rust client is not built with Go).
    pub go: String,
}

#[derive(Serialize)]
pub struct Server {
    pub name: String,
    pub id: String,
    pub version: String,
    pub jetstream: bool,
    pub url: String,
}

#[derive(Serialize)]
pub struct Host {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hostname: String,
    pub os: String,
    pub arch: String,
    pub cpus: usize,
    pub go: String,
}

impl Tool {
    /// natsperf-rust: its crate version; not built with Go.
    pub fn this() -> Tool {
        Tool {
            name: "natsperf-rust".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            go: String::new(),
        }
    }
}

impl Host {
    pub fn this() -> Host {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            o => o,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            a => a,
        };
        Host {
            hostname: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|s| s.trim().to_string())
                .unwrap_or_default(),
            os: os.into(),
            arch: arch.into(),
            cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            go: String::new(),
        }
    }
}

#[derive(Serialize)]
pub struct Stop {
    pub reason: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub error: String,
}

impl Stop {
    /// Why a run ended, first match wins: interrupted, a client's failure (empty: none), the
    /// receivers' idle timeout (Some: its error text), else completed.
    pub fn of(interrupted: bool, failure: String, idle: Option<String>) -> Stop {
        let (reason, error) = if interrupted {
            ("interrupted", String::new())
        } else if !failure.is_empty() {
            ("failed", failure)
        } else if let Some(e) = idle {
            ("idle", e)
        } else {
            ("completed", String::new())
        };
        Stop { reason, error }
    }
}

#[derive(Serialize)]
pub struct Group {
    pub name: String,
    pub kind: String,
    pub expected: i64,
    pub clients: Vec<Client>,
    pub aggregate: Aggregate,
    /// The per-interval series (Go's `record.Series`): slices aligned to the run's start.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<Interval>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_rate: Option<f64>,
    /// The pacing precision its fixed-rate senders ran at (`pace::precision`), with target_rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pace_precision_ns: Option<u64>,
    /// The precision was chosen from the rate (`pace::chosen`): no pace_precision was given.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pace_precision_chosen: bool,
    /// A queue group: the clients split the messages.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
    /// The client library of every client of the group.
    pub client: ClientLib,
}

/// The client library a client measured through (the Result's `ClientLib`).
#[derive(Serialize, Clone, Debug)]
pub struct ClientLib {
    pub library: &'static str,
    pub version: &'static str,
}

/// async-nats, at the version this crate is built against.
pub const ASYNC_NATS: ClientLib = ClientLib {
    library: "async-nats",
    version: crate::conn::ASYNC_NATS_VERSION,
};

/// One slice of a group's series (the Result's `Interval`).
#[derive(Serialize, Debug)]
pub struct Interval {
    pub offset_ns: i64,
    pub msgs: i64,
    pub bytes: i64,
    #[serde(skip_serializing_if = "is_zero_u")]
    pub p50_ns: u64,
    #[serde(skip_serializing_if = "is_zero_u")]
    pub p90_ns: u64,
    #[serde(skip_serializing_if = "is_zero_u")]
    pub p99_ns: u64,
    #[serde(skip_serializing_if = "is_zero_u")]
    pub max_ns: u64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub histogram: String,
}

#[derive(Serialize, Default)]
pub struct Events {
    #[serde(skip_serializing_if = "is_zero")]
    pub errors: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub timeouts: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub slow_consumers: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub max_inflight: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub inflight_full: i64,
}

fn is_zero(v: &i64) -> bool {
    *v == 0
}

impl Events {
    fn is_empty(&self) -> bool {
        self.errors == 0
            && self.timeouts == 0
            && self.slow_consumers == 0
            && self.max_inflight == 0
            && self.inflight_full == 0
    }
}

#[derive(Serialize)]
pub struct Client {
    pub id: usize,
    pub expected: i64,
    pub msgs: i64,
    pub bytes: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    pub msgs_per_sec: f64,
    pub bytes_per_sec: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correctness: Option<Correctness>,
    #[serde(skip_serializing_if = "Events::is_empty")]
    pub events: Events,
    /// A fixed-rate sender's lateness against its schedule (actual minus intended send time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_lateness: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<Gap>,
    pub client: ClientLib,
}

#[derive(Serialize)]
pub struct Gap {
    pub duration_ns: i64,
    pub from_ns: i64,
    pub to_ns: i64,
}

#[derive(Serialize)]
pub struct Aggregate {
    pub msgs: i64,
    pub bytes: i64,
    /// Unix ns of the first and last operation (0: none), for reports built from the group.
    #[serde(skip)]
    pub start_ns: i64,
    #[serde(skip)]
    pub end_ns: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    pub msgs_per_sec: f64,
    pub bytes_per_sec: f64,
    pub rates: Spread,
    pub time_per_msg: Spread,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correctness: Option<Correctness>,
    #[serde(skip_serializing_if = "Events::is_empty")]
    pub events: Events,
    /// The clients' send lateness merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_lateness: Option<Latency>,
}

#[derive(Serialize, Default)]
pub struct Spread {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub stddev: f64,
}

#[derive(Serialize, Clone)]
pub struct Percentile {
    pub p: f64,
    pub ns: u64,
}

#[derive(Serialize, Clone)]
pub struct Latency {
    pub count: u64,
    pub min_ns: u64,
    pub mean_ns: f64,
    pub max_ns: u64,
    pub stddev_ns: f64,
    pub percentiles: Vec<Percentile>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub histogram: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncorrected: Option<Box<Latency>>,
}

#[derive(Serialize, Default, Clone, Debug)]
pub struct Correctness {
    pub received: i64,
    pub unstamped: i64,
    pub publishers: usize,
    /// Sequence gaps below each publisher's highest sequence seen.
    pub lost: i64,
    pub duplicated: i64,
    pub out_of_order: i64,
    /// Unique messages the receivers waited for (0: open-ended).
    #[serde(skip_serializing_if = "is_zero")]
    pub expected: i64,
    /// Expected beyond the highest sequences seen: never known to have been sent, so not lost.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_received: i64,
    #[serde(skip_serializing_if = "is_zero_u")]
    pub highest_seq_min: u64,
    #[serde(skip_serializing_if = "is_zero_u")]
    pub highest_seq_max: u64,
    /// On a group's aggregate: what the receivers together saw of each publisher, by id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_publisher: Vec<PublisherSeen>,
}

#[derive(Serialize, Clone, Debug)]
pub struct PublisherSeen {
    pub id: u32,
    pub highest_seq: u64,
    pub distinct: i64,
}

fn is_zero_u(v: &u64) -> bool {
    *v == 0
}

fn highest(lo: u64, hi: u64, seq: u64) -> (u64, u64) {
    (if lo == 0 || seq < lo { seq } else { lo }, hi.max(seq))
}

/// Expected beyond what a receiver saw and the gaps below the highest sequences: the tail,
/// which it cannot tell apart from messages never sent (natsperf's `record.notReceived`).
fn not_received(expected: i64, unique: i64, lost: i64) -> i64 {
    if expected <= 0 {
        0
    } else {
        (expected - unique - lost).max(0)
    }
}

/// RFC 3339 in UTC with nanoseconds, as Go's time.Time marshals.
pub fn rfc3339(unix_ns: i64) -> String {
    let secs = unix_ns.div_euclid(1_000_000_000);
    let nanos = unix_ns.rem_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    );
    if nanos != 0 {
        let frac = format!("{nanos:09}");
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    s.push('Z');
    s
}

fn time_opt(ns: i64) -> Option<String> {
    (ns != 0).then(|| rfc3339(ns))
}

/// Settles a receiver's `not_received` against what in-process publishers are known to have
/// sent (Go's `record.SentTail`): what they sent and never arrived is lost; what they never
/// sent (a publisher behind its schedule stopped at the duration) is neither lost nor awaited.
pub fn sent_tail(c: &mut Correctness, sent: i64) {
    if c.not_received == 0 {
        return;
    }
    let unseen = sent - (c.received - c.duplicated + c.unstamped) - c.lost;
    let moved = unseen.max(0).min(c.not_received);
    if moved > 0 {
        c.lost += moved;
        c.not_received -= moved;
    }
    if c.not_received > 0 {
        c.not_received = 0;
        c.expected = c.expected.min(sent);
    }
}

/// The group's series from its clients' slices, offsets from `epoch` (Go's `record.Series`).
fn series(recs: &[Recorder], epoch: i64) -> Vec<Interval> {
    let mut by_start: std::collections::BTreeMap<i64, (i64, i64, Option<Histogram<u64>>)> =
        Default::default();
    for r in recs {
        for s in &r.intervals {
            let a = by_start.entry(s.start).or_insert((0, 0, None));
            a.0 += s.msgs;
            a.1 += s.bytes;
            if let Some(enc) = &s.lat {
                let h = hist::decode(enc);
                a.2.get_or_insert_with(hist::new_histogram)
                    .add(&h)
                    .expect("same bounds");
            }
        }
    }
    by_start
        .into_iter()
        .map(|(start, (msgs, bytes, lat))| {
            let mut iv = Interval {
                offset_ns: start - epoch,
                msgs,
                bytes,
                p50_ns: 0,
                p90_ns: 0,
                p99_ns: 0,
                max_ns: 0,
                histogram: String::new(),
            };
            if let Some(h) = lat {
                iv.p50_ns = h.value_at_quantile(0.5);
                iv.p90_ns = h.value_at_quantile(0.9);
                iv.p99_ns = h.value_at_quantile(0.99);
                iv.max_ns = h.max();
                iv.histogram = hist::encode(&h);
            }
            iv
        })
        .collect()
}

/// A summary of `h` (None when empty), as natsperf's `histo.Summary` with the histogram.
pub fn summary(h: Option<&Histogram<u64>>) -> Option<Latency> {
    let h = h.filter(|h| !h.is_empty())?;
    debug_assert_eq!(h.sigfig(), DIGITS);
    let percentiles = PERCENTILES
        .iter()
        .map(|&p| Percentile {
            p,
            ns: if p == 100.0 {
                h.max()
            } else {
                h.value_at_quantile(p / 100.0)
            },
        })
        .collect();
    Some(Latency {
        count: h.len(),
        min_ns: h.min(),
        mean_ns: h.mean(),
        max_ns: h.max(),
        stddev_ns: h.stdev(),
        percentiles,
        histogram: hist::encode(h),
        uncorrected: None,
    })
}

fn spread(values: &[f64]) -> Spread {
    if values.is_empty() {
        return Spread::default();
    }
    let n = values.len() as f64;
    let avg = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - avg) * (v - avg)).sum::<f64>() / n;
    Spread {
        min: values.iter().cloned().fold(f64::INFINITY, f64::min),
        avg,
        max: values.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        stddev: var.sqrt(),
    }
}

fn per_sec(n: i64, begin: i64, last: i64) -> f64 {
    if last > begin {
        n as f64 / ((last - begin) as f64 / 1e9)
    } else {
        0.0
    }
}

/// Correctness of one receiver. In a queue group (`shared`) gaps and the tail are judged on
/// the group's union, on the aggregate.
fn correctness(r: &Recorder, expected: i64, shared: bool) -> Option<Correctness> {
    if r.trackers.is_empty() && r.unstamped == 0 {
        return None;
    }
    let mut c = Correctness {
        unstamped: r.unstamped,
        publishers: r.trackers.len(),
        ..Default::default()
    };
    let mut distinct = 0;
    for t in r.trackers.values() {
        distinct += t.distinct;
        c.received += t.distinct + t.duplicated;
        c.duplicated += t.duplicated;
        c.out_of_order += t.out_of_order;
        (c.highest_seq_min, c.highest_seq_max) =
            highest(c.highest_seq_min, c.highest_seq_max, t.highest);
        if !shared {
            c.lost += t.gaps();
        }
    }
    if !shared {
        c.expected = expected;
        c.not_received = not_received(expected, distinct + r.unstamped, c.lost);
    }
    Some(c)
}

/// The group's correctness from its clients' (natsperf's `record.mergedCorrectness`).
fn merged_correctness(
    recs: &[Recorder],
    clients: &[Client],
    expected: i64,
    shared: bool,
) -> Option<Correctness> {
    let mut c = Correctness::default();
    let mut seen = false;
    for x in clients.iter().filter_map(|cl| cl.correctness.as_ref()) {
        seen = true;
        c.received += x.received;
        c.unstamped += x.unstamped;
        c.lost += x.lost;
        c.duplicated += x.duplicated;
        c.out_of_order += x.out_of_order;
        c.expected += x.expected;
        c.not_received += x.not_received;
    }
    if !seen {
        return None;
    }
    let mut pubs: std::collections::BTreeMap<u32, PublisherSeen> = Default::default();
    for r in recs {
        for (&id, t) in &r.trackers {
            let p = pubs.entry(id).or_insert(PublisherSeen {
                id,
                highest_seq: 0,
                distinct: 0,
            });
            p.highest_seq = p.highest_seq.max(t.highest);
            p.distinct += t.distinct;
        }
    }
    c.publishers = pubs.len();
    for p in pubs.values() {
        (c.highest_seq_min, c.highest_seq_max) =
            highest(c.highest_seq_min, c.highest_seq_max, p.highest_seq);
    }
    c.per_publisher = pubs.into_values().collect();
    if shared {
        // Members each see some of every publisher's sequence: gaps below each publisher's
        // highest sequence seen by any member that no member saw.
        c.lost = c
            .per_publisher
            .iter()
            .map(|p| (p.highest_seq as i64 - p.distinct).max(0))
            .sum();
        c.expected = expected;
        c.not_received = not_received(expected, c.received - c.duplicated + c.unstamped, c.lost);
    }
    Some(c)
}

/// What a group is, beside its clients' recorders.
pub struct GroupSpec<'a> {
    pub name: &'a str,
    pub kind: &'a str,
    /// Receivers get correctness; shared ones (a queue group) are judged on the union.
    pub receivers: bool,
    pub shared: bool,
    pub target_rate: Option<f64>,
    /// The run's start (Unix ns), from which gaps are offset.
    pub epoch: i64,
}

/// Builds a group's part of the Result from its clients' recorders and expected shares.
/// Closes every recorder's series first.
pub fn group(spec: GroupSpec, expected_each: &[i64], recs: &mut [Recorder]) -> Group {
    for r in recs.iter_mut() {
        r.finish();
    }
    let recs = &*recs;
    let GroupSpec {
        name,
        kind,
        receivers,
        shared,
        target_rate,
        epoch,
    } = spec;
    let mut clients = Vec::new();
    let (mut begin, mut last) = (0i64, 0i64);
    let (mut rates, mut per_msg) = (Vec::new(), Vec::new());
    let mut agg_lat: Option<Histogram<u64>> = None;
    let mut agg_unc: Option<Histogram<u64>> = None;
    let mut agg_late: Option<Histogram<u64>> = None;
    let mut agg_events = Events::default();
    for (i, r) in recs.iter().enumerate() {
        let mps = per_sec(r.counted(), r.begin, r.last);
        let mut latency = summary(r.lat.as_ref());
        if let (Some(l), Some(u)) = (latency.as_mut(), r.uncorr.as_ref()) {
            l.uncorrected = summary(Some(u)).map(Box::new);
        }
        for (dst, src) in [
            (&mut agg_lat, &r.lat),
            (&mut agg_unc, &r.uncorr),
            (&mut agg_late, &r.lateness),
        ] {
            if let Some(h) = src {
                dst.get_or_insert_with(hist::new_histogram)
                    .add(h)
                    .expect("same bounds");
            }
        }
        let corr = if receivers {
            correctness(r, expected_each[i], shared)
        } else {
            None
        };
        agg_events.errors += r.events.errors;
        agg_events.timeouts += r.events.timeouts;
        agg_events.slow_consumers += r.events.slow_consumers;
        agg_events.max_inflight += r.events.max_inflight;
        agg_events.inflight_full += r.events.inflight_full;
        if r.counted() > 0 {
            if begin == 0 || r.begin < begin {
                begin = r.begin;
            }
            last = last.max(r.last);
        }
        if mps > 0.0 {
            rates.push(mps);
            per_msg.push(1e9 / mps);
        }
        clients.push(Client {
            id: i + 1,
            expected: expected_each[i],
            msgs: r.counted(),
            bytes: r.bytes,
            start: time_opt(r.begin),
            end: time_opt(r.last),
            msgs_per_sec: mps,
            bytes_per_sec: per_sec(r.bytes, r.begin, r.last),
            latency,
            correctness: corr,
            send_lateness: summary(r.lateness.as_ref()),
            events: Events {
                errors: r.events.errors,
                timeouts: r.events.timeouts,
                slow_consumers: r.events.slow_consumers,
                max_inflight: r.events.max_inflight,
                inflight_full: r.events.inflight_full,
            },
            gap: (r.gap > 0).then(|| Gap {
                duration_ns: r.gap,
                from_ns: r.gap_end - r.gap - epoch,
                to_ns: r.gap_end - epoch,
            }),
            client: ASYNC_NATS,
        });
    }
    let (msgs, bytes) = (
        recs.iter().map(|r| r.counted()).sum(),
        recs.iter().map(|r| r.bytes).sum(),
    );
    let mut latency = summary(agg_lat.as_ref());
    if let (Some(l), Some(u)) = (latency.as_mut(), agg_unc.as_ref()) {
        l.uncorrected = summary(Some(u)).map(Box::new);
    }
    let expected: i64 = expected_each.iter().sum();
    let agg_corr = merged_correctness(recs, &clients, expected, shared);
    Group {
        name: name.into(),
        kind: kind.into(),
        expected,
        clients,
        series: series(recs, epoch),
        aggregate: Aggregate {
            msgs,
            bytes,
            start_ns: begin,
            end_ns: last,
            start: time_opt(begin),
            end: time_opt(last),
            msgs_per_sec: per_sec(msgs, begin, last),
            bytes_per_sec: per_sec(bytes, begin, last),
            rates: spread(&rates),
            time_per_msg: spread(&per_msg),
            latency,
            correctness: agg_corr,
            events: agg_events,
            send_lateness: summary(agg_late.as_ref()),
        },
        pace_precision_ns: target_rate.map(|_| crate::pace::precision().as_nanos() as u64),
        pace_precision_chosen: target_rate.is_some() && crate::pace::chosen(),
        target_rate,
        shared,
        client: ASYNC_NATS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    #[test]
    fn stop_reason_precedence() {
        let of = |i, f: &str, idle: Option<&str>| {
            let s = Stop::of(i, f.into(), idle.map(Into::into));
            (s.reason, s.error)
        };
        assert_eq!(of(true, "boom", Some("")), ("interrupted", String::new()));
        assert_eq!(of(false, "boom", Some("")), ("failed", "boom".into()));
        assert_eq!(of(false, "", Some("short")), ("idle", "short".into()));
        assert_eq!(of(false, "", None), ("completed", String::new()));
    }

    // As Go's TestSendLateness: each paced client's lateness in its row, merged in the
    // aggregate; an unpaced client has none.
    #[test]
    fn send_lateness_in_clients_and_aggregate() {
        let iv = std::time::Duration::from_secs(1);
        let mut recs = vec![Recorder::new(false, iv, 0), Recorder::new(false, iv, 0)];
        for (k, r) in recs.iter_mut().enumerate() {
            for i in 0..100 {
                r.sent(1_000 + i, 16);
                r.late(1_000 + i - i * 1_000 * (k as i64 + 1), 1_000 + i);
            }
        }
        let spec = GroupSpec {
            name: "pub",
            kind: "Core NATS publisher",
            receivers: false,
            shared: false,
            target_rate: Some(1000.0),
            epoch: 0,
        };
        let g = group(spec, &[100, 100], &mut recs);
        let late = |l: &Option<Latency>| l.as_ref().map(|l| (l.count, l.max_ns));
        let (c0, c1) = (
            late(&g.clients[0].send_lateness),
            late(&g.clients[1].send_lateness),
        );
        assert_eq!(c0.map(|c| c.0), Some(100));
        assert!(
            c0.is_some_and(|c| (98_950..=99_050).contains(&c.1)),
            "{c0:?}"
        );
        assert!(
            c1.is_some_and(|c| (197_900..=198_100).contains(&c.1)),
            "{c1:?}"
        );
        let a = g
            .aggregate
            .send_lateness
            .as_ref()
            .expect("aggregate lateness");
        assert_eq!(a.count, 200);
        assert_eq!(hist::decode(&a.histogram).len(), 200);
        let json = serde_json::to_value(&g).unwrap();
        assert_eq!(json["aggregate"]["send_lateness"]["count"], 200);
        assert_eq!(json["clients"][1]["send_lateness"]["count"], 100);

        let mut unpaced = vec![Recorder::new(false, iv, 0)];
        unpaced[0].sent(1_000, 16);
        let spec = GroupSpec {
            name: "pub",
            kind: "Core NATS publisher",
            receivers: false,
            shared: false,
            target_rate: None,
            epoch: 0,
        };
        let g = group(spec, &[1], &mut unpaced);
        let json = serde_json::to_value(&g).unwrap();
        assert!(
            json["aggregate"].get("send_lateness").is_none()
                && json["clients"][0].get("send_lateness").is_none()
        );
    }

    #[test]
    fn times_as_go_writes_them() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(1_700_000_000_123_456_789),
            "2023-11-14T22:13:20.123456789Z"
        );
        assert_eq!(rfc3339(951_782_400_500_000_000), "2000-02-29T00:00:00.5Z");
    }

    #[test]
    fn histogram_round_trips() {
        let mut h = hist::new_histogram();
        for v in [1u64, 1000, 123_456, 3_600_000_000_000] {
            h.record(v).unwrap();
        }
        let enc = hist::encode(&h);
        let raw = base64::engine::general_purpose::STANDARD
            .decode(enc)
            .unwrap();
        let back: Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut &raw[..])
            .unwrap();
        assert_eq!(back, h);
        assert_eq!(
            &raw[0..4],
            &[0x1c, 0x84, 0x93, 0x14],
            "V2 compressed cookie"
        );
    }
}

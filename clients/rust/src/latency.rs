//! `natsperf-rust latency`: natsperf's `latency` command (latency-tests' measurement) through
//! async-nats. One fixed-rate publisher on server A, one subscriber on server B (default the
//! same), both in this process on one clock. Before the start the publisher proves that what it
//! publishes on A reaches the subscriber on B (a probe subject), and both server RTTs are
//! measured. Latency counts from each message's intended send time, with the latency from the
//! actual send beside it (--size 24 or more). A lost message is counted, never waited for: once
//! the publisher is done, the subscriber waits at most max(1s, 10 x the largest latency seen).

use crate::clock::Clock;
use crate::conn::{ConnArgs, Want};
use crate::pace::Constant;
use crate::record::Recorder;
use crate::result::{self, Latency, ResultDoc, Stop};
use crate::settings::Settings;
use crate::stamp::{self, Ids};
use crate::workload::{self, Ctx};
use clap::Args;
use futures::StreamExt;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The latency command's flags, as natsperf's.
#[derive(Args, Clone)]
pub struct LatencyArgs {
    /// Server B, where the subscriber connects (default: the --server); same credentials and TLS
    #[arg(long = "server-b")]
    pub server_b: Option<String>,
    /// Subject to publish on (default: a fresh inbox, so runs never mix)
    #[arg(long)]
    pub subject: Option<String>,
    /// Message payload size, at least 16 B (the stamp); 24 B or more also carries the actual send time
    #[arg(long, default_value_t = stamp::SIZE)]
    pub size: usize,
    /// Messages per second
    #[arg(long, default_value_t = 1000.0)]
    pub rate: f64,
    /// How long to publish
    #[arg(long, default_value = "5s", value_parser = crate::settings::parse_duration)]
    pub duration: Duration,
    /// Leave this initial period out of the statistics
    #[arg(long, default_value = "0", value_parser = crate::settings::parse_duration)]
    pub warmup: Duration,
    /// Print the Result (JSON) on stdout instead of the text report
    #[arg(long)]
    pub json: bool,
    /// Interval of the Result's per-interval series
    #[arg(long = "interval", default_value = "1s", value_parser = crate::settings::parse_duration)]
    pub interval: Duration,
}

/// The least time the subscriber waits for the rest once the publisher is done (Go's MinDrain).
pub const MIN_DRAIN: Duration = Duration::from_secs(1);

/// How long the publisher waits for its messages to reach the subscriber on B.
const ROUTE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long the subscriber waits for the rest once the publisher is done, given the largest
/// latency seen: ten times it, at least MIN_DRAIN (Go's `latency.Drain`).
pub fn drain(max_latency: Duration) -> Duration {
    MIN_DRAIN.max(max_latency * 10)
}

impl LatencyArgs {
    pub fn validate(&self) -> Result<(), String> {
        if self.size < stamp::SIZE {
            return Err(format!("--size {}: the latency command needs at least {} bytes per message for its stamp (publisher, sequence, send time); latency-tests' 8-byte default is not enough", self.size, stamp::SIZE));
        }
        if self.size > 64 << 20 {
            return Err(format!(
                "--size {} is larger than NATS' 64 MiB maximum payload",
                self.size
            ));
        }
        if !(self.rate.is_finite() && self.rate >= 0.001 && self.rate <= 1e9) {
            return Err(format!(
                "--rate must be positive, 0.001 to 1e9 messages per second, got {}",
                self.rate
            ));
        }
        if self.duration.is_zero() {
            return Err("--duration must be positive".into());
        }
        if self.warmup >= self.duration {
            return Err("--warmup must be at least 0 and shorter than --duration".into());
        }
        if self.interval.is_zero() {
            return Err("--interval must be positive".into());
        }
        if self.msgs() < 1 {
            return Err(format!(
                "--rate {} for --duration {:?} sends no message",
                self.rate, self.duration
            ));
        }
        Ok(())
    }

    /// The count the schedule sends: rate x duration.
    pub fn msgs(&self) -> u64 {
        Constant {
            rate: self.rate,
            count: 1,
            index: 0,
        }
        .total(self.duration)
    }
}

/// A finished latency run: the Result and the text report.
pub struct Outcome {
    pub doc: ResultDoc,
    pub text: String,
}

pub async fn run(
    url_a: &str,
    conn: &ConnArgs,
    args: LatencyArgs,
    gate: Option<crate::gate::Gate>,
) -> Result<Outcome, String> {
    let (hold, agent_stop, live) = match gate {
        Some(g) => {
            let (_, h, s, p) = g.split(); // one publisher and one subscriber: never split
            (Some(h), Some(s), p)
        }
        None => (None, None, crate::live::Probe::default()),
    };
    let clock = Clock::new();
    let started = clock.now();
    let url_b = args.server_b.clone().unwrap_or_else(|| url_a.to_string());
    let msgs = args.msgs();
    let want = |name: &str, slow: &Arc<AtomicI64>| Want {
        name: name.into(),
        capacity: 1 << 22, // Go sets no pending limit: the drain bound, not a buffer, ends the run
        request_timeout: Duration::from_secs(5),
        slow: slow.clone(),
    };
    let (pub_slow, sub_slow) = (Arc::new(AtomicI64::new(0)), Arc::new(AtomicI64::new(0)));
    let pubc = crate::conn::connect(url_a, conn, want("natsperf-rust-1", &pub_slow)).await?;
    let subc = crate::conn::connect(&url_b, conn, want("natsperf-rust-2", &sub_slow)).await?;
    let subject = args.subject.clone().unwrap_or_else(|| subc.new_inbox());

    // The subscriber's subscriptions, then the probe behind them: servers forward interest in
    // order, so once a probe arrives the measured subject's interest has reached A too.
    let mut sub = subc
        .subscribe(subject.clone())
        .await
        .map_err(|e| format!("subscribe {subject}: {e}"))?;
    let probe = subc.new_inbox();
    let mut probe_sub = subc
        .subscribe(probe.clone())
        .await
        .map_err(|e| format!("probe subscription: {e}"))?;
    let sub_rtt = rtt(&subc)
        .await
        .map_err(|e| format!("sub server RTT: {e}"))?;
    let pub_rtt = rtt(&pubc)
        .await
        .map_err(|e| format!("pub server RTT: {e}"))?;
    let deadline = Instant::now() + ROUTE_TIMEOUT;
    loop {
        pubc.publish(probe.clone(), bytes::Bytes::new())
            .await
            .map_err(|e| format!("probe publish: {e}"))?;
        pubc.flush()
            .await
            .map_err(|e| format!("probe flush: {e}"))?;
        if let Ok(Some(_)) = tokio::time::timeout(Duration::from_millis(10), probe_sub.next()).await
        {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("messages published on server A did not reach the subscriber on server B within {ROUTE_TIMEOUT:?}: are A and B in one cluster (or supercluster)?"));
        }
    }
    let _ = probe_sub.unsubscribe().await;

    let (stop_tx, stop_rx) = watch::channel(false);
    let interrupted = Arc::new(AtomicBool::new(false));
    crate::gate::on_stop(agent_stop, interrupted.clone(), stop_tx.clone());
    let bench = Settings {
        subject: subject.clone(),
        clients: 1,
        msgs: Some(msgs),
        size: args.size,
        rate: args.rate,
        duration: args.duration,
        idle_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(5),
        pending_msgs: 1 << 22,
        pub_id_base: None,
        interval: args.interval,
        warmup: args.warmup,
        multisubject: false,
        multisubject_max: 100_000,
        max_inflight: 0,
    };
    let ids = Ids::random();
    if let Some(hold) = hold {
        hold.release().await?;
    }
    let cpu = crate::cpu::Sample::now();
    let epoch = clock.now();
    let ctx = Ctx {
        client: pubc.clone(),
        bench,
        index: 0,
        clock,
        stop: stop_rx.clone(),
        stopped: interrupted.clone(),
        slow: pub_slow,
        probe: live.clone(),
    };
    let mut publisher = tokio::spawn(workload::publish(ctx, ids.for_index(0), epoch));

    // The subscriber: every message, or the drain bound once the publisher is done.
    let mut rec = Recorder::new(true, args.interval, epoch)
        .with_warmup(match args.warmup.is_zero() {
            true => 0,
            false => epoch + args.warmup.as_nanos() as i64,
        })
        .with_probe(&live, "sub", 0);
    let mut stop = stop_rx;
    let share = msgs as i64;
    let mut pub_rec: Option<Recorder> = None;
    let mut failure = String::new();
    let mut idle = false;
    // The drain bound: one timer, set once the publisher is done (not a new timer per message).
    let drain_at = tokio::time::sleep(Duration::from_secs(86_400 * 365));
    tokio::pin!(drain_at);
    let mut short: Option<i64> = None; // what the publisher sent when fewer than its share
    let mut poll = tokio::time::interval(Duration::from_millis(5));
    loop {
        if rec.progress() >= share || short.is_some_and(|n| rec.progress() >= n) {
            break;
        }
        tokio::select! {
            m = sub.next() => match m {
                Some(m) => rec.received(clock.now(), &m.payload),
                None => { failure = "subscription closed".into(); break; }
            },
            p = &mut publisher, if pub_rec.is_none() => {
                let r = match p {
                    Ok(Ok(r)) => r,
                    Ok(Err((r, e))) => { failure = e; r }
                    Err(e) => return Err(format!("publisher task: {e}")),
                };
                if r.msgs < share {
                    short = Some(r.msgs);
                }
                let max_lat = rec.lat.as_ref().map_or(0, |h| h.max());
                drain_at
                    .as_mut()
                    .reset(tokio::time::Instant::now() + drain(Duration::from_nanos(max_lat)));
                pub_rec = Some(r);
                if !failure.is_empty() { break; }
            },
            _ = poll.tick(), if pub_rec.is_some() => {},
            _ = &mut drain_at => { idle = true; break; }
            _ = stop.changed() => break,
        }
    }
    let _ = stop_tx.send(true);
    let mut pub_rec = match pub_rec {
        Some(r) => r,
        None => match publisher.await {
            Ok(Ok(r)) | Ok(Err((r, _))) => r,
            Err(e) => return Err(format!("publisher task: {e}")),
        },
    };
    let cpu = cpu.and_then(|c| c.until_now(pub_rec.msgs + rec.msgs));
    rec.events.slow_consumers = sub_slow.load(Ordering::Relaxed);
    let _ = sub.unsubscribe().await;
    let end = clock.now();

    let stop = Stop::of(
        interrupted.load(Ordering::SeqCst),
        failure,
        idle.then(|| "receivers ended after the idle timeout without their full share".into()),
    );
    let sent = pub_rec.msgs;
    let pub_group = result::group(
        result::GroupSpec {
            name: "pub",
            kind: "Core NATS publisher",
            receivers: false,
            shared: false,
            target_rate: Some(args.rate),
            epoch,
        },
        &[share],
        std::slice::from_mut(&mut pub_rec),
    );
    let mut sub_group = result::group(
        result::GroupSpec {
            name: "sub",
            kind: "Core NATS subscriber",
            receivers: true,
            shared: false,
            target_rate: None,
            epoch,
        },
        &[share],
        std::slice::from_mut(&mut rec),
    );
    // What the publisher sent and never arrived is lost; what it never sent is not awaited.
    for c in sub_group
        .clients
        .iter_mut()
        .filter_map(|c| c.correctness.as_mut())
    {
        result::sent_tail(c, sent);
    }
    if let Some(c) = sub_group.aggregate.correctness.as_mut() {
        result::sent_tail(c, sent);
    }
    let info = subc.server_info();
    let settings = serde_json::json!({
        "server_b": args.server_b.as_deref().map(crate::conn::redact),
        "subject": subject,
        "size": args.size,
        "rate": args.rate,
        "duration": args.duration.as_nanos() as u64,
        "warmup": args.warmup.as_nanos() as u64,
        "pub_rtt_ns": pub_rtt.as_nanos() as u64,
        "sub_rtt_ns": sub_rtt.as_nanos() as u64,
        "connection": conn.echo(url_a),
        "client": result::client_settings(&info),
    });
    let mut doc = ResultDoc::new(
        "latency",
        settings,
        epoch,
        end,
        stop,
        vec![pub_group, sub_group],
    );
    doc.cpu = cpu;
    let report = Report::from_doc(&doc, started, pub_rtt, sub_rtt, &args);
    let mut text = report.write();
    text.push_str(&stop_line(&doc.stop));
    Ok(Outcome { doc, text })
}

/// A server round trip, as nats.go's RTT measures one: async-nats' flush only empties the
/// socket's write buffer and waits for no PONG (it took 3-9 µs on loopback, where a round trip
/// takes 30-60 µs), so an empty message goes to an inbox this connection subscribes to and
/// comes back through the server. The server handles one connection's SUB before its PUB.
async fn rtt(c: &async_nats::Client) -> Result<Duration, String> {
    let inbox = c.new_inbox();
    let mut sub = c
        .subscribe(inbox.clone())
        .await
        .map_err(|e| e.to_string())?;
    c.flush().await.map_err(|e| e.to_string())?;
    let t = Instant::now();
    c.publish(inbox, bytes::Bytes::new())
        .await
        .map_err(|e| e.to_string())?;
    c.flush().await.map_err(|e| e.to_string())?;
    match tokio::time::timeout(Duration::from_secs(5), sub.next()).await {
        Ok(Some(_)) => {}
        _ => return Err("no answer from the server within 5s".into()),
    }
    let d = t.elapsed();
    let _ = sub.unsubscribe().await;
    Ok(d)
}

/// What the text report shows (Go's `latency.Report`).
pub struct Report {
    pub pub_rtt: Duration,
    pub sub_rtt: Duration,
    pub size: usize,
    pub duration: Duration,
    pub rate: f64,
    pub actual_rate: f64,
    pub latency: Option<Latency>,
    pub first_sent: i64,
    pub last_sent: i64,
    pub last_recv: i64,
    pub sent: i64,
    pub received: i64,
    pub lost: i64,
}

/// The percentiles of latency-tests' "HDR Percentiles:" block.
pub const ROWS: [f64; 11] = [
    10.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 99.99999, 100.0,
];

const RULE: &str = "==============================";

impl Report {
    fn from_doc(
        doc: &ResultDoc,
        started: i64,
        pub_rtt: Duration,
        sub_rtt: Duration,
        args: &LatencyArgs,
    ) -> Report {
        let (p, s) = (&doc.groups[0].aggregate, &doc.groups[1].aggregate);
        let (pb, pe, se) = (p.start_ns, p.end_ns, s.end_ns);
        Report {
            pub_rtt,
            sub_rtt,
            size: args.size,
            duration: args.duration,
            rate: args.rate,
            actual_rate: p.msgs_per_sec,
            latency: s.latency.clone(),
            first_sent: if pb != 0 { pb - started } else { 0 },
            last_sent: if pb != 0 { pe - pb } else { 0 },
            last_recv: if pb != 0 && se != 0 { se - pb } else { 0 },
            sent: p.msgs,
            received: s.msgs,
            lost: s.correctness.as_ref().map_or(0, |c| c.lost),
        }
    }

    /// The report in latency-tests' (and natsperf latency's) layout.
    pub fn write(&self) -> String {
        let mut o = String::new();
        let mut line = |s: String| {
            o.push_str(&s);
            o.push('\n');
        };
        let at = |q: f64| -> i64 {
            self.latency.as_ref().map_or(-1, |l| {
                l.percentiles
                    .iter()
                    .find(|r| r.p == q)
                    .map_or(-1, |r| r.ns as i64)
            })
        };
        line(RULE.into());
        line(format!(
            "Pub Server RTT : {}",
            dur(self.pub_rtt.as_nanos() as i64)
        ));
        line(format!(
            "Sub Server RTT : {}",
            dur(self.sub_rtt.as_nanos() as i64)
        ));
        line(format!("Message Payload: {}", byte_size(self.size as f64)));
        line(format!(
            "Target Duration: {}",
            go_duration(self.duration.as_nanos() as i64)
        ));
        line(format!("Target Msgs/Sec: {}", self.rate as i64));
        line(format!(
            "Target Band/Sec: {}",
            byte_size(self.rate * self.size as f64 * 2.0)
        ));
        line(RULE.into());
        line("HDR Percentiles:".into());
        for q in ROWS {
            line(format!("{:<10}{}", format!("{q}:"), dur(at(q))));
        }
        line(RULE.into());
        line(format!("Actual Msgs/Sec: {}", self.actual_rate as i64));
        line(format!(
            "Actual Band/Sec: {}",
            byte_size(self.actual_rate.floor() * self.size as f64 * 2.0)
        ));
        let (min, max) = self
            .latency
            .as_ref()
            .map_or((-1, -1), |l| (l.min_ns as i64, l.max_ns as i64));
        line(format!("Minimum Latency: {}", dur(min)));
        line(format!("Median Latency : {}", dur(at(50.0))));
        line(format!("Maximum Latency: {}", dur(max)));
        line(format!("1st Sent Wall Time : {}", dur(self.first_sent)));
        line(format!("Last Sent Wall Time: {}", dur(self.last_sent)));
        line(format!("Last Recv Wall Time: {}", dur(self.last_recv)));
        line(RULE.into());
        line(format!("Messages Sent  : {}", self.sent));
        line(format!("Messages Recv  : {}", self.received));
        line(format!("Lost Messages  : {}", self.lost));
        if let Some(u) = self.latency.as_ref().and_then(|l| l.uncorrected.as_ref()) {
            let ua = |q: f64| {
                u.percentiles
                    .iter()
                    .find(|r| r.p == q)
                    .map_or(-1, |r| r.ns as i64)
            };
            line("Uncorrected (from the actual send; the percentiles above count from the intended send):".into());
            line(format!(
                "  P50 {} ~ P99 {} ~ P99.9 {} ~ max {}",
                dur(ua(50.0)),
                dur(ua(99.0)),
                dur(ua(99.9)),
                dur(u.max_ns as i64)
            ));
        }
        if self.rate > 0.0 && self.actual_rate < self.rate * 0.99 {
            line(format!(
                "Warning: target rate not reached: {} msgs/sec asked, {} achieved",
                self.rate as i64, self.actual_rate as i64
            ));
        }
        o
    }
}

/// natsperf's `report.StopLine`.
fn stop_line(s: &Stop) -> String {
    match s.reason {
        "completed" => String::new(),
        "interrupted" => "\nRun interrupted: the results above are partial.\n".into(),
        "idle" => format!("\nRun ended by the idle timeout: {}.\n", s.error),
        r => format!("\nRun {r}: {}. The results above are partial.\n", s.error),
    }
}

/// A duration as latency-tests prints it: Go's form truncated to microseconds, "n/a" when unknown.
fn dur(ns: i64) -> String {
    if ns < 0 {
        return "n/a".into();
    }
    go_duration(ns - ns % 1000)
}

/// Go's `time.Duration.String`.
pub fn go_duration(ns: i64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let sign = if ns < 0 { "-" } else { "" };
    let u = ns.unsigned_abs();
    fn frac(u: u64, div: u64, width: usize) -> String {
        let (i, r) = (u / div, u % div);
        if r == 0 {
            return i.to_string();
        }
        let f = format!("{r:0width$}");
        format!("{i}.{}", f.trim_end_matches('0'))
    }
    let body = if u < 1_000 {
        format!("{u}ns")
    } else if u < 1_000_000 {
        format!("{}µs", frac(u, 1_000, 3))
    } else if u < 1_000_000_000 {
        format!("{}ms", frac(u, 1_000_000, 6))
    } else {
        let secs = u / 1_000_000_000;
        let (h, m) = (secs / 3600, secs / 60 % 60);
        let s = frac(u % 60_000_000_000, 1_000_000_000, 9);
        match (h, m) {
            (0, 0) => format!("{s}s"),
            (0, m) => format!("{m}m{s}s"),
            (h, m) => format!("{h}h{m}m{s}s"),
        }
    };
    format!("{sign}{body}")
}

/// A byte count as latency-tests prints it: powers of 1024, B K M G T, one decimal below 10.
pub fn byte_size(n: f64) -> String {
    const SIZES: [&str; 5] = ["B", "K", "M", "G", "T"];
    if n < 10.0 {
        return format!("{}{}", n as i64, SIZES[0]);
    }
    let e = (n.ln() / 1024f64.ln())
        .floor()
        .min((SIZES.len() - 1) as f64);
    let val = (n / 1024f64.powf(e) * 10.0 + 0.5).floor() / 10.0;
    if val < 10.0 {
        format!("{val:.1}{}", SIZES[e as usize])
    } else {
        format!("{val:.0}{}", SIZES[e as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The values of TestByteSize in internal/latency.
    #[test]
    fn byte_sizes() {
        for (n, want) in [
            (8.0, "8B"),
            (512.0, "512B"),
            (1024.0, "1.0K"),
            (1000.0 * 512.0 * 2.0, "1000K"),
            (998.0 * 512.0 * 2.0, "998K"),
            (10000.0 * 16184.0 * 2.0, "309M"),
            (3.0 * (1u64 << 30) as f64, "3.0G"),
        ] {
            assert_eq!(byte_size(n), want, "{n}");
        }
    }

    #[test]
    fn durations_as_go_prints_them() {
        for (ns, want) in [
            (0i64, "0s"),
            (999, "999ns"),
            (1_500, "1.5µs"),
            (512_000, "512µs"),
            (1_234_000, "1.234ms"),
            (5_000_000_000, "5s"),
            (1_500_000_000, "1.5s"),
            (90_000_000_000, "1m30s"),
            (3_600_000_000_000, "1h0m0s"),
            (3_723_500_000_000, "1h2m3.5s"),
        ] {
            assert_eq!(go_duration(ns), want, "{ns}");
        }
        assert_eq!(dur(1_234_567), "1.234ms");
        assert_eq!(dur(999), "0s");
        assert_eq!(dur(-1), "n/a");
    }

    // As TestReportWithoutMessages in internal/latency.
    #[test]
    fn report_without_messages() {
        let r = Report {
            pub_rtt: Duration::ZERO,
            sub_rtt: Duration::ZERO,
            size: 16,
            duration: Duration::from_secs(1),
            rate: 1000.0,
            actual_rate: 0.0,
            latency: None,
            first_sent: 0,
            last_sent: 0,
            last_recv: 0,
            sent: 0,
            received: 0,
            lost: 0,
        };
        let out = r.write();
        for want in [
            "99.99999: n/a",
            "Median Latency : n/a",
            "Lost Messages  : 0",
            "Warning: target rate not reached: 1000 msgs/sec asked, 0 achieved",
            "Target Band/Sec: 31K",
        ] {
            assert!(out.contains(want), "output lacks {want:?}:\n{out}");
        }
    }

    #[test]
    fn drain_bound() {
        assert_eq!(drain(Duration::from_millis(1)), MIN_DRAIN);
        assert_eq!(drain(Duration::from_millis(300)), Duration::from_secs(3));
    }
}

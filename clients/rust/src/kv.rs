//! `kv put` and `kv get` through async-nats's KV API (`jetstream::kv::Store`), as natsperf's
//! Go client runs them (internal/js/kv.go, internal/engine/kv.go): keys "0".."n-1" (n the
//! messages, or --randomize random ones among that many), values of --size bytes stamped as
//! every natsperf message, one operation at a time per client, each round trip recorded. At a
//! fixed rate with an in-flight bound, puts use the open model (as `js pub sync`'s, js.rs).
//!
//! The bucket: a missing one is created, marked `created-by: natsperf`, with the Spec's
//! storage, replicas, history, compression and max_bytes; an existing one is used as it is
//! (its differences from what was asked are warned about). Puts into a bucket natsperf did not
//! create, and purges of it, are refused without --force; a get fills a missing key only in a
//! bucket natsperf created. Nothing is ever deleted.

use crate::conn::{ConnArgs, Want};
use crate::js::{storage_name, stream_state, MARK_KEY, MARK_VALUE};
use crate::record::Recorder;
use crate::result::{self, ResultDoc, Stop, StreamState};
use crate::settings::Settings;
use crate::stamp;
use crate::workload::{
    join_clients, open_bound, open_loop, record, share, Answer, Clients, Ctx, Outcome, Schedule,
};
use async_nats::jetstream::{self, kv, stream};
use futures::StreamExt;
use std::collections::HashMap;
use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Duration;

/// The bucket unless the Spec names one (Go's engine.DefaultBucket).
pub const DEFAULT_BUCKET: &str = "benchbucket";

/// The fewest keys of puts bounded by time only (Go's engine.DefaultMsgs).
const DEFAULT_KEYS: u64 = 100_000;

/// Fill puts awaiting their acks at once (Go's js.fillWindow).
const FILL_WINDOW: usize = 1000;

/// A kv workload as the agent plans it from the Spec (the workload's config and its setup
/// bucket).
#[derive(Clone)]
pub struct KvArgs {
    pub bench: Settings,
    /// kv put; else kv get.
    pub put: bool,
    pub bucket: String,
    /// What a missing bucket is created with; `Some` where the Spec asked for it, so an
    /// existing bucket is compared on those only (Go's BucketSpec.Asked).
    pub storage: Option<String>,
    pub replicas: Option<usize>,
    pub history: Option<i64>,
    /// Some(true): s2.
    pub compression: Option<bool>,
    /// Of a bucket natsperf-rust creates (0: unlimited).
    pub max_bytes: i64,
    /// Empty the bucket first: only one natsperf created, unless `force`.
    pub purge: bool,
    /// Allow putting into, or purging, a bucket natsperf did not create.
    pub force: bool,
    /// Random keys among this many (0: the message number's key).
    pub randomize: u64,
    pub ack_timeout: Duration,
}

impl KvArgs {
    /// A Spec's kv workload `w` (config `c`) as the agent runs it, with the setup bucket it
    /// names (a bucket the setup does not list asks for nothing but its name, as Go's
    /// `Build.bucket`); `bench` is what the agent planned from the workload's pacing.
    pub fn from_spec(
        spec: &crate::spec::Spec,
        c: &crate::spec::Kv,
        w: &crate::spec::Workload,
        bench: Settings,
    ) -> Result<KvArgs, String> {
        let name = match c.bucket.as_str() {
            "" => DEFAULT_BUCKET,
            b => b,
        };
        let bk = spec
            .setup
            .buckets
            .iter()
            .find(|b| b.name == name)
            .cloned()
            .unwrap_or_default();
        if bk.delete_after {
            return Err("natsperf-rust deletes no bucket (setup.buckets[].delete_after): let natsperf make the setup, or use --client go".into());
        }
        let set = |s: &str| (!s.is_empty()).then(|| s.to_string());
        let args = KvArgs {
            bench,
            put: matches!(w.config, crate::spec::Config::KvPut(_)),
            bucket: name.to_string(),
            storage: set(&bk.storage),
            replicas: (bk.replicas != 0).then_some(bk.replicas.max(0) as usize),
            history: (bk.history != 0).then_some(bk.history),
            compression: match bk.compression.as_str() {
                "" => None,
                "none" => Some(false),
                "s2" => Some(true),
                other => return Err(format!("compression {other:?}: want s2 or none")),
            },
            max_bytes: bk.max_bytes.map_or(0, |s| s.0.max(0)),
            purge: bk.purge,
            force: bk.force,
            randomize: c.randomize.max(0) as u64,
            ack_timeout: match c.ack_timeout.0 {
                d if d.is_zero() => Duration::from_secs(5),
                d => d,
            },
        };
        args.validate()?;
        Ok(args)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.bucket.is_empty()
            || !self
                .bucket
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        {
            return Err(format!("--bucket {:?} is not a bucket name", self.bucket));
        }
        self.storage_type()?;
        if matches!(self.replicas, Some(r) if !(1..=5).contains(&r)) {
            return Err("--replicas must be 1 to 5".into());
        }
        if matches!(self.history, Some(h) if !(1..=64).contains(&h)) {
            return Err("--history must be 1 to 64".into());
        }
        if self.ack_timeout.is_zero() {
            return Err("--ack-timeout must be positive".into());
        }
        if !self.put && (self.bench.rate > 0.0 || !self.bench.duration.is_zero()) {
            return Err("kv get takes no --rate or --duration (they are kv put's)".into());
        }
        Ok(())
    }

    /// The command as natsperf names it.
    pub fn command(&self) -> &'static str {
        if self.put {
            "kv put"
        } else {
            "kv get"
        }
    }

    fn storage_type(&self) -> Result<stream::StorageType, String> {
        match self.storage.as_deref().unwrap_or("file") {
            "file" | "" => Ok(stream::StorageType::File),
            "memory" => Ok(stream::StorageType::Memory),
            s => Err(format!("--storage must be file or memory, got {s:?}")),
        }
    }

    /// How many keys the run uses (Go's buildKV): --randomize's, else the messages, else
    /// (puts bounded by time) the sends rate x duration gives, at least `DEFAULT_KEYS`.
    fn key_count(&self) -> u64 {
        if self.randomize > 0 {
            return self.randomize;
        }
        let b = &self.bench;
        if b.msgs() > 0 || !self.put {
            return b.msgs().max(1);
        }
        let sends: u64 = (0..b.clients).map(|i| self.time_share(i)).sum();
        sends.max(DEFAULT_KEYS)
    }

    /// Client i's sends at a fixed rate bounded by --duration only (0 otherwise).
    fn time_share(&self, i: usize) -> u64 {
        let b = &self.bench;
        if b.rate <= 0.0 || b.duration.is_zero() {
            return 0;
        }
        crate::pace::Constant {
            rate: b.rate,
            count: b.clients,
            index: i,
        }
        .total(b.duration)
    }

    /// Client i's first key when not randomized: its index times its share, as Go's
    /// `kvClient.offset`.
    fn offset(&self, i: usize) -> u64 {
        let b = &self.bench;
        let own = match b.msgs() {
            0 => self.time_share(i),
            m => share(m, b.clients, i),
        };
        i as u64 * own
    }
}

/// A bucket ready for the run: its stream, whether this run created it, whether it carries
/// natsperf's mark, and what the user should know about it.
struct Made {
    stream: stream::Stream,
    created: bool,
    ours: bool,
    warnings: Vec<String>,
}

/// The stream a created bucket gets: async-nats's `create_key_value` configuration
/// (`kv_to_stream_config`) plus natsperf's mark, which `kv::Config` has no field for; made in
/// one call, so the bucket is never unmarked.
fn bucket_stream(args: &KvArgs) -> Result<stream::Config, String> {
    Ok(stream::Config {
        name: format!("KV_{}", args.bucket),
        subjects: vec![format!("$KV.{}.>", args.bucket)],
        max_messages_per_subject: args.history.unwrap_or(1),
        max_bytes: if args.max_bytes > 0 {
            args.max_bytes
        } else {
            -1
        },
        storage: args.storage_type()?,
        num_replicas: args.replicas.unwrap_or(1),
        allow_rollup: true,
        deny_delete: true,
        deny_purge: false,
        allow_direct: true,
        discard: stream::DiscardPolicy::New,
        duplicate_window: Duration::from_secs(120),
        compression: args
            .compression
            .unwrap_or(false)
            .then_some(stream::Compression::S2),
        metadata: HashMap::from([(MARK_KEY.to_string(), MARK_VALUE.to_string())]),
        ..Default::default()
    })
}

fn compression_name(c: &Option<stream::Compression>) -> &'static str {
    match c {
        Some(stream::Compression::S2) => "s2",
        _ => "none",
    }
}

/// Makes the bucket ready as Go's `kvBucket` does: created (marked) when missing, an existing
/// one's differences from what was asked warned about, puts into someone else's refused
/// without --force, purged when asked and allowed, and for get filled when natsperf created it
/// and a key is missing.
async fn make_bucket(
    js: &jetstream::Context,
    args: &KvArgs,
    keys: &[String],
) -> Result<Made, String> {
    let b = &args.bucket;
    let name = format!("KV_{b}");
    let (mut st, created) = match js.get_stream(&name).await {
        Ok(s) => (s, false),
        Err(e) => {
            let missing = matches!(e.kind(), jetstream::context::GetStreamErrorKind::JetStream(j)
                if j.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND);
            if !missing {
                return Err(format!("look up KV bucket {b}: {e}"));
            }
            match js.create_stream(bucket_stream(args)?).await {
                Ok(s) => (s, true),
                // Another part of the run made it meanwhile: used as that part made it.
                Err(e) => match js.get_stream(&name).await {
                    Ok(s) => (s, false),
                    Err(_) => return Err(format!("create KV bucket {b}: {e}")),
                },
            }
        }
    };
    let info = st
        .info()
        .await
        .map_err(|e| format!("KV bucket {b}: {e}"))?
        .clone();
    let c = &info.config;
    let ours = c.metadata.get(MARK_KEY).map(String::as_str) == Some(MARK_VALUE);
    let mut warnings = Vec::new();
    if !created {
        let mut diffs = Vec::new();
        let mut diff = |key: &str, asked: bool, got: String, want: String| {
            if asked && got != want {
                diffs.push(format!("{key} {got} (asked {want})"));
            }
        };
        diff(
            "storage",
            args.storage.is_some(),
            storage_name(c.storage).into(),
            storage_name(args.storage_type()?).into(),
        );
        diff(
            "replicas",
            args.replicas.is_some(),
            c.num_replicas.max(1).to_string(),
            args.replicas.unwrap_or(1).to_string(),
        );
        diff(
            "history",
            args.history.is_some(),
            c.max_messages_per_subject.to_string(),
            args.history.unwrap_or(1).to_string(),
        );
        diff(
            "compression",
            args.compression.is_some(),
            compression_name(&c.compression).into(),
            compression_name(
                &args
                    .compression
                    .unwrap_or(false)
                    .then_some(stream::Compression::S2),
            )
            .into(),
        );
        if !diffs.is_empty() {
            warnings.push(format!(
                "KV bucket {b} exists with another configuration and is used as it is: {}",
                diffs.join(", ")
            ));
        }
    }
    let no_mark = format!("(no {MARK_KEY}={MARK_VALUE} metadata)");
    if args.put && !ours && !args.force {
        // Putting keys 0..N-1 overwrites whatever a user kept under them.
        return Err(format!("refusing to put keys 0..{} into KV bucket {b}: natsperf did not create it {no_mark} and its values there would be overwritten; pass --force to use it anyway", keys.len() - 1));
    }
    if args.purge {
        if !ours && !args.force {
            return Err(format!("refusing to purge stream {name}: natsperf did not create it {no_mark}; pass --force to purge it anyway"));
        }
        st.purge()
            .await
            .map_err(|e| format!("purge stream {name}: {e}"))?;
    }
    if !args.put {
        let store = js
            .get_key_value(b)
            .await
            .map_err(|e| format!("KV bucket {b}: {e}"))?;
        if missing_key(&store, keys).await? {
            if ours {
                fill(&store, b, keys, args.bench.size).await?;
            } else {
                warnings.push(format!("KV bucket {b} lacks some of the keys 0..{} and natsperf fills only buckets it created: missing keys count as errors", keys.len() - 1));
            }
        }
    }
    Ok(Made {
        stream: st,
        created,
        ours,
        warnings,
    })
}

/// Whether the first or the last key is missing (the fill writes them first and last).
async fn missing_key(store: &kv::Store, keys: &[String]) -> Result<bool, String> {
    for k in [&keys[0], &keys[keys.len() - 1]] {
        match store.get(k.as_str()).await {
            Ok(Some(_)) => {}
            Ok(None) => return Ok(true),
            Err(e) => return Err(format!("KV bucket {}: get {k}: {e}", store.name)),
        }
    }
    Ok(false)
}

/// Puts every key with a stamped value of `size` bytes before a get benchmark, up to
/// `FILL_WINDOW` awaiting acks: setup, not measured (Go's js.FillBucket).
async fn fill(store: &kv::Store, bucket: &str, keys: &[String], size: usize) -> Result<(), String> {
    let base = stamp::payload(size);
    let clock = crate::clock::Clock::new();
    let mut acks = futures::stream::FuturesUnordered::new();
    for (i, k) in keys.iter().enumerate() {
        if acks.len() >= FILL_WINDOW {
            if let Some(Err(e)) = acks.next().await {
                return Err(format!("fill bucket {bucket}: {e}"));
            }
        }
        let mut v = base.clone();
        if size >= stamp::SIZE {
            stamp::put(&mut v, stamp::MAX_PUBLISHER, i as u64 + 1, clock.now());
        }
        acks.push(store.put(k.as_str(), v.into()));
    }
    while let Some(done) = acks.next().await {
        done.map_err(|e| format!("fill bucket {bucket}: {e}"))?;
    }
    Ok(())
}

pub async fn run(
    url: &str,
    conn: &ConnArgs,
    args: KvArgs,
    gate: Option<crate::gate::Gate>,
) -> Result<ResultDoc, String> {
    let bench = args.bench.clone();
    let setup = crate::conn::connect(
        url,
        conn,
        Want {
            name: "natsperf-rust-setup".into(),
            capacity: 1024,
            request_timeout: Duration::from_secs(10),
            slow: Arc::new(AtomicI64::new(0)),
        },
    )
    .await?;
    let mut sjs = jetstream::new(setup.clone());
    sjs.set_timeout(Duration::from_secs(10));
    let keys: Arc<Vec<String>> = Arc::new((0..args.key_count()).map(|i| i.to_string()).collect());
    let mut made = make_bucket(&sjs, &args, &keys).await?;

    let mut run = Clients::connect(url, conn, &bench, gate, 1024, args.ack_timeout).await?;
    let mut stores = Vec::with_capacity(run.conns.len());
    for c in &run.conns {
        let mut js = jetstream::new(c.clone());
        js.set_timeout(args.ack_timeout);
        let store = js
            .get_key_value(&args.bucket)
            .await
            .map_err(|e| format!("KV bucket {}: {e}", args.bucket))?;
        stores.push(Arc::new(store));
    }
    let info = run.conns[0].server_info();
    run.release().await?;
    let cpu = crate::cpu::Sample::now();
    let (clock, ids, range) = (run.clock, run.ids, run.range.clone());
    let epoch = clock.now();
    let mut tasks = Vec::new();
    for (k, store) in stores.into_iter().enumerate() {
        let ctx = run.ctx(k, &bench);
        let index = ctx.index;
        let keys = Keys {
            all: keys.clone(),
            offset: args.offset(index),
            rng: (args.randomize > 0).then(|| Rng::seeded(index)),
        };
        tasks.push(tokio::spawn(client(
            ctx,
            store,
            keys,
            ids.for_index(index),
            epoch,
            args.put,
        )));
    }
    let (mut recs, failure) = join_clients(tasks).await?;
    let cpu = cpu.and_then(|c| c.until_now(crate::workload::handled(&recs)));
    let end = clock.now();
    let done: i64 = recs.iter().map(|r| r.msgs).sum();
    let expected: Vec<i64> = range
        .map(|i| match bench.msgs() {
            0 => args.time_share(i) as i64,
            m => share(m, bench.clients, i) as i64,
        })
        .collect();
    let stop = Stop::of(run.interrupted(), failure, None);
    let group = result::group(
        result::GroupSpec {
            name: if args.put { "put" } else { "get" },
            kind: if args.put {
                "JetStream KV putter"
            } else {
                "JetStream KV getter"
            },
            receivers: false,
            shared: false,
            target_rate: (args.put && bench.rate > 0.0).then_some(bench.rate),
            epoch,
        },
        &expected,
        &mut recs,
    );
    let stream_name = format!("KV_{}", args.bucket);
    let mut streams = Vec::new();
    match made.stream.info().await {
        Ok(i) => streams.push(StreamState {
            bucket: args.bucket.clone(),
            compression: compression_name(&i.config.compression).into(),
            created_by_natsperf: made.ours,
            ..stream_state(stream_name, i, if args.put { done } else { 0 }, bench.size)
        }),
        Err(e) => made
            .warnings
            .push(format!("stream info {stream_name} after the run: {e}")),
    }
    let settings = serde_json::json!({
        "bench": bench.echo(),
        "workload": {
            "bucket": args.bucket,
            "size": bench.size,
            "keys": keys.len(),
            "randomize": args.randomize,
            "rate": bench.rate,
            "timeout": args.ack_timeout.as_nanos() as u64,
            "max_inflight": (args.put && bench.rate > 0.0 && bench.max_inflight > 0).then_some(bench.max_inflight),
            "purge": args.purge,
            "created": made.created,
            "pub_id_base": ids.0,
        },
        "connection": conn.echo(url),
        "client": result::client_settings(&info),
    });
    let mut doc = ResultDoc::new(args.command(), settings, epoch, end, stop, vec![group]);
    doc.streams = streams;
    doc.warnings = made.warnings;
    doc.cpu = cpu;
    Ok(doc)
}

/// A client's keys: the message number's (from its offset), or random ones.
struct Keys {
    all: Arc<Vec<String>>,
    offset: u64,
    rng: Option<Rng>,
}

impl Keys {
    /// The index of message i's key.
    fn pick(&mut self, i: u64) -> usize {
        let n = self.all.len() as u64;
        match &mut self.rng {
            Some(r) => (r.next() % n) as usize,
            None => ((self.offset + i) % n) as usize,
        }
    }
}

/// SplitMix64: --randomize's keys, seeded per run and client (no dependency for a few lines).
struct Rng(u64);

impl Rng {
    fn seeded(index: usize) -> Rng {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(index);
        Rng(h.finish())
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// What a put's ack means: a timeout or a refused or failed ack is counted and the client goes
/// on; it ends when the publish itself failed (the connection is gone), or (one at a time) when
/// no stream answered: the bucket is gone or has no leader, as Go's `fatal` ends its putter.
fn put_answer(res: Result<u64, kv::PutError>, bucket: &str, closed_loop: bool) -> Answer {
    use jetstream::context::{PublishError, PublishErrorKind};
    let e = match res {
        Ok(_) => return Answer::Ok,
        Err(e) => e,
    };
    let end = |msg| Answer::End { msg, error: true };
    if e.kind() != kv::PutErrorKind::Ack {
        return end(format!("kv put: {e}"));
    }
    let kind = std::error::Error::source(&e)
        .and_then(|s| s.downcast_ref::<PublishError>())
        .map(|p| p.kind());
    match kind {
        Some(PublishErrorKind::TimedOut) => Answer::Timeout,
        Some(PublishErrorKind::StreamNotFound) if closed_loop => end(format!(
            "kv put: no stream answered for KV bucket {bucket} (deleted, or without a leader)"
        )),
        _ => Answer::Error,
    }
}

/// One client: puts or gets one at a time (the open model for puts at a fixed rate with a
/// bound), each round trip recorded from its intended and its actual send. A get of a missing
/// key counts as an error, as Go's.
async fn client(
    mut ctx: Ctx,
    store: Arc<kv::Store>,
    mut keys: Keys,
    id: u32,
    epoch: i64,
    put: bool,
) -> Outcome {
    let mut rec = Recorder::new(true, ctx.bench.interval, epoch)
        .with_warmup(crate::workload::warmup_end(&ctx.bench, epoch))
        .with_probe(&ctx.probe, if put { "put" } else { "get" }, ctx.index);
    let mut sched = Schedule::new(&ctx, epoch);
    if let (true, Some(bound)) = (put, open_bound(&ctx)) {
        // Kv put at a fixed rate: the open model (Go's `openPuts`), a failed ack counted and
        // the schedule kept.
        let all = keys.all.clone();
        let (store, all) = (&*store, &all[..]);
        let start = move |i, value| {
            let key = keys.pick(i);
            std::future::ready(Ok(store.put(&all[key], value)))
        };
        let answer = |res| put_answer(res, &store.name, false);
        return open_loop(ctx, rec, sched, id, bound, start, answer).await;
    }
    let size = ctx.bench.size;
    let mut payloads = stamp::Payloads::new(size);
    while let Some((i, intended, sent)) = sched.next(&mut ctx.stop, &ctx.stopped, &mut rec).await {
        let key = keys.pick(i);
        if put {
            if size >= stamp::SIZE {
                stamp::put(payloads.buf(), id, i + 1, intended);
            }
            let res = store.put(&keys.all[key], payloads.take()).await;
            let now = ctx.clock.now();
            let answer = put_answer(res, &store.name, true);
            if let Err(msg) = record(&mut rec, answer, now, size, intended, sent) {
                return Err((rec, msg));
            }
        } else {
            let res = store.get(keys.all[key].as_str()).await;
            let now = ctx.clock.now();
            match res {
                Ok(Some(v)) => rec.op_corrected(now, v.len(), now - intended, now - sent),
                Ok(None) => rec.events.errors += 1,
                Err(e) if e.kind() == kv::EntryErrorKind::TimedOut => rec.events.timeouts += 1,
                Err(e) => {
                    rec.events.errors += 1;
                    return Err((rec, format!("kv get: {e}")));
                }
            }
        }
    }
    sched.paced_span(&mut rec);
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(put: bool) -> KvArgs {
        KvArgs {
            bench: Settings {
                subject: String::new(),
                clients: 4,
                msgs: Some(1000),
                size: 128,
                rate: 0.0,
                duration: Duration::ZERO,
                idle_timeout: Duration::from_secs(5),
                timeout: Duration::from_secs(5),
                pending_msgs: 1024,
                pub_id_base: None,
                interval: Duration::from_secs(1),
                warmup: Duration::ZERO,
                multisubject: false,
                multisubject_max: 1,
                max_inflight: 0,
            },
            put,
            bucket: DEFAULT_BUCKET.into(),
            storage: None,
            replicas: None,
            history: None,
            compression: None,
            max_bytes: 0,
            purge: false,
            force: false,
            randomize: 0,
            ack_timeout: Duration::from_secs(5),
        }
    }

    /// Keys as Go's buildKV counts them and each client's first key as its offset.
    #[test]
    fn keys_as_go_counts_them() {
        let mut a = args(true);
        assert_eq!(a.key_count(), 1000);
        assert_eq!((a.offset(0), a.offset(3)), (0, 750));
        a.randomize = 7;
        assert_eq!(a.key_count(), 7);
        a.randomize = 0;
        a.bench.msgs = Some(0);
        a.bench.rate = 1000.0;
        a.bench.duration = Duration::from_secs(300);
        assert_eq!(
            a.key_count(),
            300_000,
            "puts bounded by time: rate x duration"
        );
        assert_eq!(a.offset(1), 75_000);
        a.bench.duration = Duration::from_secs(2);
        assert_eq!(a.key_count(), DEFAULT_KEYS, "at least the default");
        let mut k = Keys {
            all: Arc::new((0..10).map(|i| i.to_string()).collect()),
            offset: 8,
            rng: None,
        };
        assert_eq!((k.pick(0), k.pick(1), k.pick(2)), (8, 9, 0));
        k.rng = Some(Rng::seeded(0));
        assert!((0..100).all(|i| k.pick(i) < 10));
    }

    #[test]
    fn refuses_what_go_refuses() {
        let ok = args(false);
        assert!(ok.validate().is_ok());
        for (change, want) in [
            (
                (|a: &mut KvArgs| a.bucket = "a.b".into()) as fn(&mut KvArgs),
                "not a bucket name",
            ),
            (|a| a.storage = Some("disk".into()), "--storage"),
            (|a| a.replicas = Some(6), "--replicas"),
            (|a| a.history = Some(65), "--history"),
            (|a| a.ack_timeout = Duration::ZERO, "--ack-timeout"),
            (|a| a.bench.rate = 10.0, "kv get takes no --rate"),
        ] {
            let mut a = args(false);
            change(&mut a);
            let err = a.validate().unwrap_err();
            assert!(err.contains(want), "{err:?} does not name {want}");
        }
    }

    /// A created bucket is async-nats's KV stream with natsperf's mark and the asked settings.
    #[test]
    fn created_bucket_is_marked() {
        let mut a = args(true);
        a.storage = Some("memory".into());
        a.history = Some(5);
        a.compression = Some(true);
        let c = bucket_stream(&a).unwrap();
        assert_eq!(c.name, "KV_benchbucket");
        assert_eq!(c.subjects, ["$KV.benchbucket.>"]);
        assert_eq!(c.max_messages_per_subject, 5);
        assert_eq!(c.max_bytes, -1);
        assert!(c.allow_direct && c.allow_rollup && c.deny_delete);
        assert_eq!(c.storage, stream::StorageType::Memory);
        assert_eq!(c.compression, Some(stream::Compression::S2));
        assert_eq!(
            c.metadata.get(MARK_KEY).map(String::as_str),
            Some(MARK_VALUE)
        );
    }
}

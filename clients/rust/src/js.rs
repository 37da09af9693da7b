//! `natsperf-rust js pub async|sync`: JetStream publishing through async-nats, as natsperf's
//! `js pub async` (each client publishes a window of --batch messages without waiting, then
//! waits for the window's acks: nats bench's semantics) and `js pub sync` (one message at a
//! time, each waiting for its ack). Every ack is recorded with its own publish-to-ack latency
//! (from the intended send at a fixed rate, with the uncorrected one beside it). The stream is created only with --create and only when it does
//! not exist, marked `created-by: natsperf`; nothing is ever deleted or purged.

use crate::conn::{ConnArgs, Want};
use crate::record::Recorder;
use crate::result::{self, ResultDoc, Stop, StreamState};
use crate::settings::Settings;
use crate::stamp;
use crate::workload::{
    join_clients, open_bound, open_loop, record, share, Answer, Clients, Ctx, Outcome, Schedule,
};
use async_nats::jetstream::{self, stream};
use clap::Args;
use std::collections::HashMap;
use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Duration;

/// The metadata natsperf puts on what it creates (Go's `js.MarkKey`/`MarkValue`).
pub const MARK_KEY: &str = "created-by";
pub const MARK_VALUE: &str = "natsperf";

/// Go's `js.DefaultAsyncWindow`.
pub const DEFAULT_WINDOW: usize = 500;

#[derive(Args, Clone)]
pub struct JsPubArgs {
    #[command(flatten)]
    pub bench: Settings,
    /// Stream to use
    #[arg(long, default_value = "benchstream")]
    pub stream: String,
    /// Create the stream (subjects SUBJECT and SUBJECT.>, marked created-by: natsperf) if it does not exist
    #[arg(long)]
    pub create: bool,
    /// Storage of a stream natsperf-rust creates: file or memory
    #[arg(long, default_value = "file")]
    pub storage: String,
    /// Replicas of a stream natsperf-rust creates
    #[arg(long, default_value_t = 1)]
    pub replicas: usize,
    /// Byte limit of a stream natsperf-rust creates (the Spec's setup stream's max_bytes;
    /// none: unlimited)
    #[arg(skip)]
    pub max_bytes: Option<i64>,
    /// Duplicate window of a stream natsperf-rust creates (the Spec's setup stream's)
    #[arg(skip = DEFAULT_DEDUP_WINDOW)]
    pub dedup_window: Duration,
    /// Messages published before waiting for their acks (also --async-window; js pub async
    /// only) [default: 500]
    #[arg(long, visible_alias = "async-window")]
    pub batch: Option<usize>,
    /// How long to wait for an ack
    #[arg(long = "ack-timeout", default_value = "5s", value_parser = crate::settings::parse_duration)]
    pub ack_timeout: Duration,
    /// Allow publishing into a KV bucket's or object store's stream natsperf did not create
    #[arg(long)]
    pub force: bool,
    /// Give every message a Nats-Msg-Id (unique per run and message) for the stream's
    /// duplicate window
    #[arg(long)]
    pub dedup: bool,
    /// `js pub sync`: one message at a time (set by the subcommand, not a flag).
    #[arg(skip)]
    pub sync: bool,
}

impl JsPubArgs {
    pub fn validate(&self) -> Result<(), String> {
        match (self.sync, self.batch) {
            (true, Some(_)) => {
                return Err(
                    "--batch is for js pub async: js pub sync publishes one message at a time"
                        .into(),
                )
            }
            (false, Some(0)) => return Err("--batch must be at least 1".into()),
            _ => {}
        }
        if self.replicas == 0 || self.replicas > 5 {
            return Err("--replicas must be 1 to 5".into());
        }
        if self.ack_timeout.is_zero() {
            return Err("--ack-timeout must be positive".into());
        }
        if self.stream.is_empty() || self.stream.contains(['.', '*', '>', ' ']) {
            return Err(format!("--stream {:?} is not a stream name", self.stream));
        }
        self.storage_type().map(|_| ())
    }

    /// Messages published before their acks are awaited: 1 for js pub sync.
    pub fn window(&self) -> usize {
        match self.sync {
            true => 1,
            false => self.batch.unwrap_or(DEFAULT_WINDOW),
        }
    }

    /// The command as natsperf names it.
    pub fn command(&self) -> &'static str {
        match self.sync {
            true => "js pub sync",
            false => "js pub async",
        }
    }

    fn storage_type(&self) -> Result<stream::StorageType, String> {
        match self.storage.to_ascii_lowercase().as_str() {
            "file" | "" => Ok(stream::StorageType::File),
            "memory" | "mem" => Ok(stream::StorageType::Memory),
            s => Err(format!("--storage must be file or memory, got {s:?}")),
        }
    }
}

/// A stream as the server reported it after the run, with what `published` messages of `size`
/// bytes should take on disk across its replicas (none published: those left out).
pub(crate) fn stream_state(
    name: String,
    i: &stream::Info,
    published: i64,
    size: usize,
) -> StreamState {
    let replicas = i.config.num_replicas.max(1);
    let mut s = StreamState {
        name,
        storage: storage_name(i.config.storage).into(),
        replicas,
        messages: i.state.messages,
        bytes: i.state.bytes,
        ..Default::default()
    };
    if published > 0 {
        s.published = published;
        s.msg_size = size as i64;
        s.expected_bytes = published * replicas as i64 * size as i64;
        s.stored_bytes = i.state.bytes * replicas as u64;
    }
    s
}

pub(crate) fn storage_name(t: stream::StorageType) -> &'static str {
    match t {
        stream::StorageType::Memory => "memory",
        _ => "file",
    }
}

/// Opens the stream: an existing one as it is (refusing another's KV or object store stream
/// without --force), a missing one created only with --create. Returns it, whether this run
/// created it, and a warning when the stream is someone else's.
async fn ensure_stream(
    js: &jetstream::Context,
    args: &JsPubArgs,
) -> Result<(stream::Stream, bool, Option<String>), String> {
    let name = &args.stream;
    match js.get_stream(name).await {
        Ok(mut s) => {
            let info = s
                .info()
                .await
                .map_err(|e| format!("stream info {name}: {e}"))?;
            if info.config.metadata.get(MARK_KEY).map(String::as_str) == Some(MARK_VALUE) {
                let warning = differs(name, &info.config, args);
                return Ok((s, false, warning));
            }
            let no_mark = format!("(no {MARK_KEY}={MARK_VALUE} metadata)");
            let held = info.state.messages;
            let risk = if let Some(b) = name.strip_prefix("KV_") {
                Some(format!(
                    "it holds KV bucket {b}, whose keys would be overwritten"
                ))
            } else {
                name.strip_prefix("OBJ_").map(|o| {
                    format!("it holds object store {o}, whose objects would be overwritten")
                })
            };
            match (risk, args.force) {
                (Some(r), false) => Err(format!("refusing to publish into stream {name}: natsperf did not create it {no_mark} and {r}; pass --force to publish anyway")),
                (Some(r), true) => Ok((s, false, Some(format!("Publishing into stream {name} with --force: natsperf did not create it {no_mark} and {r}")))),
                (None, _) => Ok((s, false, Some(format!("Publishing into stream {name}, which natsperf did not create {no_mark}: the run adds its messages to the {held} it holds")))),
            }
        }
        Err(e) => {
            let missing = matches!(e.kind(), jetstream::context::GetStreamErrorKind::JetStream(j)
                if j.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND);
            if !missing {
                return Err(format!("look up stream {name}: {e}"));
            }
            if !args.create {
                return Err(format!(
                    "stream not found: {name} (pass --create to create it, marked {MARK_KEY}={MARK_VALUE})"
                ));
            }
            let subject = &args.bench.subject;
            let cfg = stream::Config {
                name: name.clone(),
                subjects: vec![subject.clone(), format!("{subject}.>")],
                storage: args.storage_type()?,
                num_replicas: args.replicas,
                max_bytes: args.max_bytes.filter(|&b| b > 0).unwrap_or(-1),
                duplicate_window: args.dedup_window,
                allow_direct: true,
                metadata: HashMap::from([(MARK_KEY.to_string(), MARK_VALUE.to_string())]),
                ..Default::default()
            };
            let s = js
                .create_stream(cfg)
                .await
                .map_err(|e| format!("create stream {name}: {e}"))?;
            Ok((s, true, None))
        }
    }
}

/// The duplicate window of a stream natsperf creates when the Spec names none (Go's too).
pub const DEFAULT_DEDUP_WINDOW: Duration = Duration::from_secs(120);

/// A warning when natsperf's own existing stream has another storage, replica count or byte
/// limit than the run asks for: it is used as it is, as the Go client does.
fn differs(name: &str, have: &stream::Config, args: &JsPubArgs) -> Option<String> {
    let mut d = Vec::new();
    if let Ok(want) = args.storage_type() {
        if want != have.storage {
            d.push(format!(
                "storage {} (asked {})",
                storage_name(have.storage),
                storage_name(want)
            ));
        }
    }
    if have.num_replicas.max(1) != args.replicas {
        d.push(format!(
            "replicas {} (asked {})",
            have.num_replicas.max(1),
            args.replicas
        ));
    }
    let limit = |b: i64| match b > 0 {
        true => format!("{b} bytes"),
        false => "unlimited".to_string(),
    };
    let want = args.max_bytes.unwrap_or(-1);
    if (have.max_bytes > 0 || want > 0) && have.max_bytes != want {
        d.push(format!(
            "maxbytes {} (asked {})",
            limit(have.max_bytes),
            limit(want)
        ));
    }
    (!d.is_empty()).then(|| {
        format!(
            "Stream {name} exists with another configuration and is used as it is: {}",
            d.join(", ")
        )
    })
}

pub async fn run(
    url: &str,
    conn: &ConnArgs,
    args: JsPubArgs,
    gate: Option<crate::gate::Gate>,
) -> Result<ResultDoc, String> {
    let bench = args.bench.clone();
    let setup_slow = Arc::new(AtomicI64::new(0));
    let setup = crate::conn::connect(
        url,
        conn,
        Want {
            name: "natsperf-rust-setup".into(),
            capacity: 1024,
            request_timeout: Duration::from_secs(10),
            slow: setup_slow,
        },
    )
    .await?;
    let mut sjs = jetstream::new(setup.clone());
    sjs.set_timeout(Duration::from_secs(10));
    let (mut st, created, warning) = ensure_stream(&sjs, &args).await?;

    let mut run = Clients::connect(url, conn, &bench, gate, 1024, args.ack_timeout).await?;
    let info = run.conns[0].server_info();
    run.release().await?;
    let cpu = crate::cpu::Sample::now();
    let (clock, ids, range) = (run.clock, run.ids, run.range.clone());
    let epoch = clock.now();
    let mut tasks = Vec::new();
    for k in 0..run.conns.len() {
        let ctx = run.ctx(k, &bench);
        let index = ctx.index;
        tasks.push(tokio::spawn(publish_async(
            ctx,
            ids.for_index(index),
            epoch,
            args.window(),
            args.ack_timeout,
            args.dedup.then(|| msg_id_prefix(index)),
        )));
    }
    let (mut recs, failure) = join_clients(tasks).await?;
    let cpu = cpu.and_then(|c| c.until_now(crate::workload::handled(&recs)));
    let end = clock.now();
    let acked: i64 = recs.iter().map(|r| r.msgs).sum();
    let expected: Vec<i64> = range
        .map(|i| share(bench.msgs(), bench.clients, i) as i64)
        .collect();
    let stop = Stop::of(run.interrupted(), failure, None);
    let group = result::group(
        result::GroupSpec {
            name: "pub",
            kind: match args.sync {
                true => "JetStream synchronous publisher",
                false => "JetStream asynchronous publisher",
            },
            receivers: false,
            shared: false,
            target_rate: (bench.rate > 0.0).then_some(bench.rate),
            epoch,
        },
        &expected,
        &mut recs,
    );
    let mut warnings: Vec<String> = warning.into_iter().collect();
    let mut streams = Vec::new();
    match st.info().await {
        Ok(i) => streams.push(StreamState {
            created_by_natsperf: i.config.metadata.get(MARK_KEY).map(String::as_str)
                == Some(MARK_VALUE),
            ..stream_state(args.stream.clone(), i, acked, bench.size)
        }),
        Err(e) => warnings.push(format!("stream info {} after the run: {e}", args.stream)),
    }
    let settings = serde_json::json!({
        "bench": bench.echo(),
        "workload": {
            "subject": bench.subject,
            "stream": args.stream,
            "create": args.create,
            "created": created,
            "storage": args.storage,
            "replicas": args.replicas,
            "batch": (!args.sync).then_some(args.window()),
            "ack_timeout": args.ack_timeout.as_nanos() as u64,
            "dedup": args.dedup,
            "multisubject": bench.multisubject.then_some(bench.multisubject_max),
            "pub_id_base": ids.0,
        },
        "connection": conn.echo(url),
        "client": result::client_settings(&info),
    });
    let mut doc = ResultDoc::new(args.command(), settings, epoch, end, stop, vec![group]);
    doc.streams = streams;
    doc.warnings = warnings;
    doc.cpu = cpu;
    Ok(doc)
}

/// A client's message-id prefix for --dedup: unique per run (random) and client, as Go's
/// `pubBase.runID`; the message's sequence number follows it.
fn msg_id_prefix(index: usize) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(index);
    format!("{:x}-{index}-", h.finish())
}

/// One client: windows of `window` publishes (1: js pub sync), then their acks in order. Each
/// ack is recorded when it arrives, with its latency from the intended and the actual send.
async fn publish_async(
    mut ctx: Ctx,
    id: u32,
    epoch: i64,
    window: usize,
    ack_timeout: Duration,
    dedup: Option<String>,
) -> Outcome {
    let mut rec = Recorder::new(true, ctx.bench.interval, epoch)
        .with_warmup(crate::workload::warmup_end(&ctx.bench, epoch))
        .with_probe(&ctx.probe, "pub", ctx.index);
    let mut sched = Schedule::new(&ctx, epoch);
    let size = ctx.bench.size;
    let mut payloads = stamp::Payloads::new(size);
    let mut js = jetstream::new(ctx.client.clone());
    js.set_timeout(ack_timeout);
    let subjects = crate::workload::subjects(&ctx);
    let mut msg_id = String::new();
    if let (1, Some(bound)) = (window, open_bound(&ctx)) {
        // js pub sync at a fixed rate: the open model, as service request's.
        let (js, subjects) = (&js, &subjects);
        let start = move |i: u64, payload| {
            let subject = subjects[crate::workload::turn(i, subjects.len())].clone();
            let p = publication(payload, dedup.as_deref(), &mut msg_id, i);
            async move {
                js.send_publish(subject, p)
                    .await
                    .map_err(|e| format!("publish: {e}"))
            }
        };
        return open_loop(ctx, rec, sched, id, bound, start, ack_answer).await;
    }
    let mut pending = Vec::with_capacity(window);
    let mut ended = false;
    while !ended {
        for _ in 0..window {
            let Some((i, intended, now)) = sched.next(&mut ctx.stop, &ctx.stopped, &mut rec).await
            else {
                ended = true;
                break;
            };
            if size >= stamp::SIZE {
                stamp::put(payloads.buf(), id, i + 1, intended);
            }
            let subject = subjects[crate::workload::turn(i, subjects.len())].clone();
            let p = publication(payloads.take(), dedup.as_deref(), &mut msg_id, i);
            let sent = js.send_publish(subject, p).await;
            match sent {
                Ok(ack) => pending.push((ack, intended, now)),
                Err(e) => {
                    rec.events.errors += 1;
                    return Err((rec, format!("publish: {e}")));
                }
            }
        }
        for (ack, intended, sent) in pending.drain(..) {
            let res = ack.await;
            let now = ctx.clock.now();
            if let Err(msg) = record(&mut rec, ack_answer(res), now, size, intended, sent) {
                return Err((rec, msg));
            }
        }
    }
    sched.paced_span(&mut rec);
    Ok(rec)
}

/// What message i (0-based) is published as: its payload, with the message id `{dedup}{i+1}`
/// when deduplication is on (msg_id is reused for it; the header copies it). Both `js pub`
/// loops send it with `send_publish` (what async-nats's `publish` does without an id).
fn publication(
    payload: bytes::Bytes,
    dedup: Option<&str>,
    msg_id: &mut String,
    i: u64,
) -> jetstream::context::Publish {
    let p = jetstream::context::Publish::build().payload(payload);
    match dedup {
        None => p,
        Some(prefix) => {
            use std::fmt::Write;
            msg_id.clear();
            let _ = write!(msg_id, "{prefix}{}", i + 1);
            p.message_id(&*msg_id)
        }
    }
}

/// What an ack means: a timeout or an error is counted and the client goes on.
fn ack_answer(
    res: Result<jetstream::publish::PublishAck, jetstream::context::PublishError>,
) -> Answer {
    match res {
        Ok(_) => Answer::Ok,
        Err(e) => match e.kind() {
            jetstream::context::PublishErrorKind::TimedOut => Answer::Timeout,
            _ => Answer::Error,
        },
    }
}

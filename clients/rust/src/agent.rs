//! `natsperf-rust agent`: natsperf's agent protocol (docs/agent-protocol.md, natsperf.agent/v1)
//! over async-nats, so a natsperf coordinator (`natsperf CMD --client rust`, `--agents
//! client=rust`) runs parts of its runs through async-nats. The same micro service, endpoints,
//! heartbeats and chunked Result as the Go agent; testdata/vectors/agent.json keeps them equal.

use crate::clock::Clock;
use crate::conn::{ConnArgs, Want};
use crate::gate::Gate;
use crate::parts::range;
use crate::spec::{self, Config, Spec};
use crate::workload::Kind;
use async_nats::service::ServiceExt;
use base64::Engine as _;
use bytes::Bytes;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{oneshot, watch};

pub const PROTOCOL: &str = "natsperf.agent/v1";
pub const SERVICE: &str = "natsperf-agent";
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
const LOSS_AFTER: Duration = Duration::from_secs(3);
const PREPARE_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(clap::Args, Clone)]
pub struct AgentArgs {
    /// The NATS server the coordinator uses (default: the -s server)
    #[arg(long)]
    pub control: Option<String>,
    /// A label k=v coordinators select agents by (--agents k=v); repeat for more
    #[arg(long = "label")]
    pub labels: Vec<String>,
    /// The agent's name (default HOST-PID)
    #[arg(long)]
    pub name: Option<String>,
}

// Protocol messages (the Go side's internal/agentproto).

#[derive(Deserialize, Default, Debug)]
pub struct Part {
    pub index: i64,
    pub count: i64,
}

#[derive(Deserialize, Default, Debug)]
pub struct Secrets {
    #[serde(default)]
    pub password: String,
    #[serde(default)]
    pub token: String,
}

#[derive(Deserialize, Default, Debug)]
pub struct PublisherIds {
    #[serde(default)]
    pub base: u32,
}

#[derive(Deserialize, Debug)]
pub struct Prepare {
    pub protocol: String,
    #[serde(default)]
    pub version: String,
    pub run: String,
    /// The Spec, read by `spec::parse` (which names the path of what it refuses).
    pub spec: Box<RawValue>,
    #[serde(default)]
    pub secrets: Secrets,
    #[serde(default)]
    pub part: Part,
    #[serde(default)]
    pub publisher_ids: PublisherIds,
    /// Every part's clock minus the coordinator's: receivers subtract the difference from
    /// another part's publishers' latencies (`live::PartClocks`).
    #[serde(default)]
    pub clock_offsets_ns: Vec<i64>,
    /// Send each client's closed intervals as they close (`interval` records).
    #[serde(default)]
    pub intervals: bool,
}

/// A closed interval of one client, published live (Go's `agentproto.Interval`).
#[derive(Serialize, Deserialize, Debug)]
pub struct Interval {
    pub run: String,
    pub agent: String,
    pub t: i64,
    pub src: String,
    pub msgs: i64,
    pub bytes: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lat: String,
}

#[derive(Deserialize, Serialize, Debug)]
pub struct Start {
    pub run: String,
    pub at_ns: i64,
}

#[derive(Deserialize, Serialize, Debug)]
pub struct StopMsg {
    pub run: String,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct OkReply {
    pub ok: bool,
}

/// A refusal's body (also in micro's error headers), fields in Go's order.
#[derive(Serialize, Deserialize, Debug)]
pub struct ErrorReply {
    pub error: String,
    pub code: String,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct ClockReply {
    pub now_ns: i64,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct Heartbeat {
    pub run: String,
    pub agent: String,
    pub state: String,
    pub msgs: i64,
    pub at_ns: i64,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct ResultChunk {
    pub run: String,
    pub agent: String,
    pub chunk: usize,
    pub chunks: usize,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub data: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

/// Cuts data into chunks whose JSON stays under max_payload (Go's agentproto.Chunk).
pub fn chunk(run: &str, agent: &str, data: &[u8], max_payload: usize) -> Vec<ResultChunk> {
    let per = ((max_payload as i64 - 512 - run.len() as i64 - agent.len() as i64) * 3 / 4).max(1)
        as usize;
    let n = data.len().div_ceil(per).max(1);
    (0..n)
        .map(|i| {
            let lo = (i * per).min(data.len());
            let hi = ((i + 1) * per).min(data.len());
            ResultChunk {
                run: run.into(),
                agent: agent.into(),
                chunk: i,
                chunks: n,
                data: base64::engine::general_purpose::STANDARD.encode(&data[lo..hi]),
                error: String::new(),
            }
        })
        .collect()
}

/// What a Spec asks this agent to run.
pub enum Plan {
    Core(Kind, crate::settings::Settings),
    Latency(crate::latency::LatencyArgs),
    Js(crate::js::JsPubArgs),
    Kv(crate::kv::KvArgs),
}

/// Where the clients connect: the Spec's target, or the agent's own when it names none.
pub struct Target {
    pub url: String,
    pub conn: ConnArgs,
}

/// The clients a Spec's workload has (its group size).
fn clients(w: &spec::Workload) -> usize {
    match w.config {
        Config::Latency(_) => 1,
        _ => w.clients.max(1) as usize,
    }
}

/// A config's size, or the default when it names none.
fn size(size: Option<spec::Size>, default: usize) -> Result<usize, String> {
    match size {
        None => Ok(default),
        Some(spec::Size(n)) if n > 0 => Ok(n as usize),
        Some(spec::Size(n)) => Err(format!(
            "size {n}: natsperf-rust takes a whole number of bytes"
        )),
    }
}

/// One workload of a Spec as this agent runs it: its plan, target, client count, and the
/// prefix of its groups in a run of several workloads (Go's `instancePrefix`: `pub1`,
/// `w2-1`), None when it is the only one.
pub struct Unit {
    pub plan: Plan,
    pub target: Target,
    pub clients: usize,
    pub prefix: Option<String>,
    /// Run whole by one part, as item `.0` of `.1` (a workload instance, or one of the
    /// workloads sharing a name: Go's `engine.Unit`); None: split by client.
    pub whole: Option<(usize, usize)>,
}

impl Unit {
    /// This part's clients `lo..hi` of the unit (empty when another part runs it).
    pub fn clients_of(&self, index: usize, count: usize) -> (usize, usize) {
        match self.whole {
            Some((i, m)) => {
                let (lo, hi) = range(m, index, count);
                if (lo..hi).contains(&i) {
                    (0, self.clients)
                } else {
                    (0, 0)
                }
            }
            None => range(self.clients, index, count),
        }
    }

    /// Its publisher-id block as `live::PartClocks` reads it.
    pub fn block(&self, count: usize) -> crate::live::Block {
        match self.whole {
            Some((i, m)) => crate::live::Block::Whole(
                (0..count)
                    .find(|&p| {
                        let (lo, hi) = range(m, p, count);
                        (lo..hi).contains(&i)
                    })
                    .unwrap_or(0),
            ),
            None => crate::live::Block::Split(self.clients),
        }
    }
}

/// Turns a Spec into what this agent runs, or says in one line why it cannot. A workload
/// with `instances` > 1 is that many units. `base` is the prepare's publisher-id base: unit
/// k gets the block `base + k*4096`, as the Go engine hands them out.
pub fn plan(spec: &Spec, secrets: &Secrets, own: &Target, base: u32) -> Result<Vec<Unit>, String> {
    let ws = &spec.workloads;
    if ws.is_empty() {
        return Err("the Spec has no workloads".into());
    }
    if ws.len() > 1 && ws.iter().any(|w| matches!(w.config, Config::Latency(_))) {
        return Err(
            "latency runs alone (one publisher and one subscriber): give it its own run".into(),
        );
    }
    let instances = |w: &spec::Workload| w.instances.max(0) as usize;
    let single = ws.len() == 1 && instances(&ws[0]) <= 1;
    let mut numbered: HashMap<String, usize> = HashMap::new();
    let mut units = Vec::new();
    let mut next_block = 0u32;
    for (k, w) in ws.iter().enumerate() {
        let m = instances(w).max(1);
        for i in 1..=m {
            let block = if base == 0 {
                0
            } else {
                base.wrapping_add(next_block * 4096)
            };
            next_block += 1;
            let (plan, target, clients) = plan_workload(spec, w, secrets, own, block)?;
            let name = w.name.clone();
            // As engine.Unit: instances whole, and the workloads sharing a name (without
            // instances) as the instances of that name.
            let whole = if m > 1 {
                Some((i - 1, m))
            } else if !name.is_empty() {
                let same: Vec<usize> = (0..ws.len())
                    .filter(|&j| ws[j].name == name && instances(&ws[j]) <= 1)
                    .collect();
                Some((same.iter().filter(|&&j| j < k).count(), same.len()))
            } else {
                None
            };
            let prefix = (!single).then(|| {
                let c = numbered.entry(name.clone()).or_insert(0);
                *c += 1;
                let n = if name.is_empty() { i } else { *c };
                let name = if name.is_empty() {
                    format!("w{}-", k + 1)
                } else {
                    name.to_string()
                };
                if name.ends_with(|c: char| c.is_ascii_digit()) {
                    format!("{name}-{n}")
                } else {
                    format!("{name}{n}")
                }
            });
            units.push(Unit {
                plan,
                target,
                clients,
                prefix,
                whole,
            });
        }
    }
    Ok(units)
}

/// What the configs of the kinds a `Core` plan runs set; zero: the command's default.
#[derive(Default)]
struct CoreConfig {
    subject: String,
    size: Option<spec::Size>,
    multisubject: bool,
    multisubject_max: i64,
    idle_timeout: Duration,
    timeout: Duration,
    pending_msgs: i64,
}

impl CoreConfig {
    fn of(config: &Config) -> CoreConfig {
        let s = |subject: &str| subject.to_string();
        match config {
            Config::Pub(c) => CoreConfig {
                subject: s(&c.subject),
                size: c.size,
                multisubject: c.multisubject,
                multisubject_max: c.multisubject_max,
                ..Default::default()
            },
            Config::Sub(c) => CoreConfig {
                subject: s(&c.subject),
                size: c.size,
                multisubject: c.multisubject,
                idle_timeout: c.idle_timeout.0,
                pending_msgs: c.pending_msgs,
                ..Default::default()
            },
            Config::ServiceServe(c) => CoreConfig {
                subject: s(&c.subject),
                size: c.size,
                ..Default::default()
            },
            Config::ServiceRequest(c) => CoreConfig {
                subject: s(&c.subject),
                size: c.size,
                timeout: c.timeout.0,
                ..Default::default()
            },
            Config::Latency(c) => CoreConfig {
                subject: s(&c.subject),
                size: c.size,
                ..Default::default()
            },
            Config::JsPubSync(c) | Config::JsPubAsync(c) => CoreConfig {
                subject: s(&c.subject),
                size: c.size,
                multisubject: c.multisubject,
                multisubject_max: c.multisubject_max,
                ..Default::default()
            },
            Config::KvPut(c) | Config::KvGet(c) => CoreConfig {
                size: c.size,
                ..Default::default()
            },
            Config::Other => CoreConfig::default(),
        }
    }
}

/// `d`, or `default` when zero.
fn or(d: Duration, default: Duration) -> Duration {
    if d.is_zero() {
        default
    } else {
        d
    }
}

/// One workload of the Spec.
fn plan_workload(
    spec: &Spec,
    w: &spec::Workload,
    secrets: &Secrets,
    own: &Target,
    base: u32,
) -> Result<(Plan, Target, usize), String> {
    let kind = w.kind.as_str();
    if w.config == Config::Other {
        return Err(format!(
            "natsperf-rust runs {}, not {kind:?}: use --client go",
            spec::kind_list()
        ));
    }
    for (set, what) in [
        (!spec.faults.is_empty(), "faults"),
        (spec.verify, "--verify"),
        (spec.no_latency, "--no-latency"),
    ] {
        if set {
            return Err(format!(
                "natsperf-rust does not run {what}: use --client go"
            ));
        }
    }
    if !w.pacing.sleep.0.is_zero() {
        return Err("natsperf-rust does not run --sleep: use --client go".into());
    }
    // What a Spec sets and natsperf-rust would not do is refused, never ignored: the Result
    // would describe a run that did not happen.
    if !matches!(w.payload_fill.as_str(), "" | "text") {
        return Err(format!(
            "--payload-fill {} does not apply to natsperf-rust (its payload after the stamp is text): use --client go",
            w.payload_fill
        ));
    }
    if let Config::Sub(c) = &w.config {
        if matches!(c.pending_bytes, Some(spec::Size(n)) if n > 0) {
            return Err("--pending-bytes does not apply to natsperf-rust (async-nats bounds a subscription by messages: --pending-msgs): use --client go".into());
        }
    }
    if let Some(flag) = spec.target.unsupported() {
        return Err(format!(
            "{flag} does not apply to natsperf-rust: use --client go"
        ));
    }
    let (payload, randomize) = match &w.config {
        Config::Pub(c) => (Some(&c.payload), c.multisubject_randomize),
        Config::ServiceRequest(c) => (Some(&c.payload), false),
        Config::JsPubSync(c) | Config::JsPubAsync(c) => {
            (Some(&c.payload), c.multisubject_randomize)
        }
        _ => (None, false),
    };
    if let Some(flag) = payload.and_then(|p| p.unsupported()) {
        return Err(format!(
            "{flag} does not apply to natsperf-rust (it sends --size bytes with the stamp in the payload): use --client go"
        ));
    }
    if randomize {
        return Err(
            "--multisubject-randomize does not apply to natsperf-rust: use --client go".into(),
        );
    }
    let p = &w.pacing;
    if p.rate_to > 0.0 || !p.steps.is_empty() || p.arrivals == "poisson" {
        return Err("natsperf-rust paces at a constant rate: --ramp, --steps and --arrivals poisson run with --client go".into());
    }
    if let Config::Sub(c) = &w.config {
        if !c.queue.is_empty() {
            return Err(format!(
                "natsperf-rust does not run {kind} with queue: use --client go"
            ));
        }
    }
    let cfg = CoreConfig::of(&w.config);
    let msgs = w.pacing.msgs.max(0) as u64;
    let rate = w.pacing.rate;
    let duration = w.pacing.duration.0;
    let warmup = spec.warmup.0;
    let interval = or(spec.interval.0, Duration::from_secs(1));
    let target = target(&spec.target, secrets, own)?;
    let n = clients(w);
    let default_msgs = match (&w.config, duration.is_zero()) {
        (Config::ServiceServe(_), _) | (_, false) => 0,
        _ => 100_000,
    };
    let bench = crate::settings::Settings {
        subject: cfg.subject,
        clients: n,
        msgs: Some(if msgs > 0 { msgs } else { default_msgs }),
        size: size(cfg.size, 128)?,
        rate,
        duration,
        idle_timeout: or(cfg.idle_timeout, Duration::from_secs(5)),
        timeout: or(cfg.timeout, Duration::from_secs(5)),
        pending_msgs: if cfg.pending_msgs > 0 {
            cfg.pending_msgs as usize
        } else {
            1 << 20
        },
        pub_id_base: (base != 0).then_some(base),
        interval,
        warmup,
        multisubject: cfg.multisubject,
        multisubject_max: if cfg.multisubject_max > 0 {
            cfg.multisubject_max as u64
        } else {
            100_000
        },
        max_inflight: w.pacing.max_inflight.max(0) as u64,
    };
    let plan = match &w.config {
        Config::Pub(_) => Plan::Core(Kind::Pub, bench),
        Config::Sub(_) => Plan::Core(Kind::Sub, bench),
        Config::ServiceServe(_) => Plan::Core(Kind::Serve, bench),
        Config::ServiceRequest(_) => Plan::Core(Kind::Request, bench),
        Config::Latency(c) => {
            let args = crate::latency::LatencyArgs {
                server_b: (!c.server_b.is_empty()).then(|| c.server_b.clone()),
                subject: (!bench.subject.is_empty()).then(|| bench.subject.clone()),
                size: size(c.size, crate::stamp::SIZE)?,
                rate: if rate > 0.0 { rate } else { 1000.0 },
                duration: or(duration, Duration::from_secs(5)),
                warmup,
                json: true,
                interval,
            };
            args.validate()?;
            Plan::Latency(args)
        }
        Config::JsPubSync(c) | Config::JsPubAsync(c) => {
            let sync = matches!(w.config, Config::JsPubSync(_));
            let stream = if c.stream.is_empty() {
                "benchstream".to_string()
            } else {
                c.stream.clone()
            };
            // The stream natsperf-rust creates is the Spec's setup stream of that name, as
            // Go's setup would make it.
            let st = spec.setup.streams.iter().find(|s| s.name == stream);
            let args = crate::js::JsPubArgs {
                bench,
                create: !spec.setup.streams.is_empty(),
                storage: st
                    .map(|s| s.storage.clone())
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "file".into()),
                replicas: st.map_or(1, |s| s.replicas.max(1) as usize),
                max_bytes: st.and_then(|s| s.max_bytes).map(|b| b.0),
                dedup_window: st
                    .and_then(|s| s.dedup_window)
                    .map_or(crate::js::DEFAULT_DEDUP_WINDOW, |d| d.0),
                stream,
                batch: match sync {
                    true => None,
                    false => c.batch.filter(|&b| b > 0).map(|b| b as usize),
                },
                ack_timeout: or(c.ack_timeout.0, Duration::from_secs(5)),
                force: false,
                dedup: c.dedup,
                sync,
            };
            args.validate()?;
            Plan::Js(args)
        }
        Config::KvPut(c) | Config::KvGet(c) => {
            Plan::Kv(crate::kv::KvArgs::from_spec(spec, c, w, bench)?)
        }
        Config::Other => unreachable!("refused above"),
    };
    Ok((plan, target, n))
}

/// The Spec's target as this agent connects to it; none named: the agent's own.
fn target(t: &spec::Target, secrets: &Secrets, own: &Target) -> Result<Target, String> {
    if t.embedded.is_some() {
        return Err(
            "an embedded server is private to one process: give the agents a server".into(),
        );
    }
    if !t.context.is_empty() {
        return Err("natsperf-rust reads no nats contexts: give the servers (-s)".into());
    }
    if t.servers.is_empty() {
        return Ok(Target {
            url: own.url.clone(),
            conn: own.conn.clone(),
        });
    }
    let s = |v: &str| (!v.is_empty()).then(|| v.to_string());
    let path = |v: &str| s(v).map(PathBuf::from);
    let conn = ConnArgs {
        creds: path(&t.creds),
        user: s(&t.user),
        password: s(&secrets.password),
        token: s(&secrets.token),
        nkey: path(&t.nkey),
        tls_cert: path(&t.tls_cert),
        tls_key: path(&t.tls_key),
        tls_ca: path(&t.tls_ca),
        tls_first: t.tls_first,
        connect_timeout: or(t.connect_timeout.0, Duration::from_secs(5)),
    };
    conn.validate()?;
    Ok(Target {
        url: t.servers.join(","),
        conn,
    })
}

/// Runs one workload of a Spec held at its gate.
fn run_unit(
    plan: Plan,
    target: Target,
    gate: Gate,
) -> std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<crate::result::ResultDoc, String>> + Send>,
> {
    Box::pin(async move {
        match plan {
            Plan::Core(kind, bench) => {
                crate::workload::run(kind, &target.url, &target.conn, bench, Some(gate)).await
            }
            Plan::Latency(args) => crate::latency::run(&target.url, &target.conn, args, Some(gate))
                .await
                .map(|o| o.doc),
            Plan::Js(args) => crate::js::run(&target.url, &target.conn, args, Some(gate)).await,
            Plan::Kv(args) => crate::kv::run(&target.url, &target.conn, args, Some(gate)).await,
        }
    })
}

/// One Result of a run's workloads, as the Go engine joins them: a single workload's as it
/// is; several under command `run`, each group named after its workload (`pub1/pub`), the
/// run spanning them all, the first failure (else interruption, idle end) its stop.
fn combine(
    outs: Vec<Result<crate::result::ResultDoc, String>>,
    prefixes: Vec<Option<String>>,
) -> Result<crate::result::ResultDoc, String> {
    let mut docs = Vec::new();
    for (out, prefix) in outs.into_iter().zip(prefixes) {
        let mut doc = out?;
        if let Some(p) = prefix {
            for g in &mut doc.groups {
                g.name = format!("{p}/{}", g.name);
            }
        }
        docs.push(doc);
    }
    let mut it = docs.into_iter();
    let mut first = it.next().ok_or("no workload ran")?;
    let mut several = false;
    for d in it {
        several = true;
        first.start = first.start.min(d.start);
        first.end = first.end.max(d.end);
        let rank = |r: &str| match r {
            "failed" => 3,
            "interrupted" => 2,
            "idle" => 1,
            _ => 0,
        };
        if rank(d.stop.reason) > rank(first.stop.reason) {
            first.stop = d.stop;
        }
        first.groups.extend(d.groups);
        first.streams.extend(d.streams);
        first.warnings.extend(d.warnings);
        // The workloads ran side by side in this process: its CPU once, over them all.
        first.cpu = match (first.cpu.take(), d.cpu) {
            (Some(a), Some(b)) => Some(a.span(&b)),
            (a, b) => a.or(b),
        };
    }
    if several {
        first.command = "run".into();
    }
    Ok(first)
}

/// One run on this agent.
struct Job {
    run: String,
    start: Option<oneshot::Sender<i64>>,
    stop: watch::Sender<bool>,
    /// Set by start: the heartbeat's state.
    running: Arc<std::sync::atomic::AtomicBool>,
}

struct Agent {
    nc: async_nats::Client,
    id: String,
    name: String,
    own: Target,
    job: Mutex<Option<Job>>,
}

fn now_ns() -> i64 {
    Clock::new().now()
}

fn log(msg: String) {
    let secs = now_ns() / 1_000_000_000 % 86_400;
    eprintln!(
        "{:02}:{:02}:{:02} {msg}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
}

/// Serves runs until Ctrl-C (or SIGTERM); then stops its run and unregisters.
pub async fn serve(args: AgentArgs, server: String, conn: ConnArgs) -> Result<(), String> {
    let host = crate::result::Host::this().hostname;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("{host}-{}", std::process::id()));
    let mut meta: HashMap<String, String> = HashMap::new();
    for l in &args.labels {
        for kv in l.split(',') {
            let (k, v) = kv
                .split_once('=')
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| format!("--label {kv:?}: want k=v"))?;
            meta.insert(format!("label.{k}"), v.to_string());
        }
    }
    let control = args.control.clone().unwrap_or_else(|| server.clone());
    let nc = crate::conn::connect(
        &control,
        &conn,
        Want {
            name: format!("natsperf-agent-{name}"),
            capacity: 4096,
            request_timeout: Duration::from_secs(10),
            slow: Arc::new(AtomicI64::new(0)),
        },
    )
    .await
    .map_err(|e| format!("control server: {e}"))?;
    let version = env!("CARGO_PKG_VERSION");
    for (k, v) in [
        ("protocol", PROTOCOL.to_string()),
        ("natsperf_version", format!("natsperf-rust {version}")),
        ("name", name.clone()),
        ("host", host),
        ("cores", crate::result::Host::this().cpus.to_string()),
        ("client", "rust".into()),
        ("client_version", crate::conn::ASYNC_NATS_VERSION.into()),
    ] {
        meta.insert(k.into(), v);
    }
    let svc = nc
        .service_builder()
        .description(
            "natsperf agent (natsperf-rust, async-nats): runs parts of distributed benchmarks",
        )
        .metadata(meta)
        .start(SERVICE, version)
        .await
        .map_err(|e| format!("register the agent service: {e}"))?;
    let id = svc.info().await.id;
    let group = svc.group(format!("natsperf.agent.{id}"));
    let agent = Arc::new(Agent {
        nc: nc.clone(),
        id: id.clone(),
        name: name.clone(),
        own: Target { url: server, conn },
        job: Mutex::new(None),
    });
    for ep in ["clock", "prepare", "start", "stop"] {
        let mut endpoint = group
            .endpoint(ep)
            .await
            .map_err(|e| format!("register the agent's {ep} endpoint: {e}"))?;
        let agent = agent.clone();
        tokio::spawn(async move {
            while let Some(req) = endpoint.next().await {
                let agent = agent.clone();
                match ep {
                    "clock" => agent.clock(req).await,
                    "prepare" => {
                        tokio::spawn(async move { agent.prepare(req).await });
                    }
                    "start" => agent.start(req).await,
                    _ => agent.stop(req).await,
                }
            }
        });
    }
    nc.flush()
        .await
        .map_err(|e| format!("register the agent service: {e}"))?;
    log(format!(
        "natsperf-rust agent {name} (id {id}, async-nats {}) waiting for runs on {}",
        crate::conn::ASYNC_NATS_VERSION,
        crate::conn::redact(&control)
    ));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| format!("signals: {e}"))?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term.recv() => {},
    }
    // Stop the run (its partial Result is published), then unregister.
    let ended = {
        let mut g = agent.job.lock().unwrap();
        g.as_mut().map(|j| {
            let _ = j.stop.send(true);
            j.start.take();
        })
    };
    if ended.is_some() {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while agent.job.lock().unwrap().is_some() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let _ = svc.stop().await;
    let _ = nc.flush().await;
    Ok(())
}

async fn reply<T: Serialize>(nc: &async_nats::Client, req: &async_nats::service::Request, v: &T) {
    if let Some(r) = req.message.reply.clone() {
        let _ = nc
            .publish(
                r,
                Bytes::from(serde_json::to_vec(v).expect("replies serialise")),
            )
            .await;
    }
}

/// A refusal: micro's error headers and the JSON body.
async fn refuse(
    nc: &async_nats::Client,
    req: &async_nats::service::Request,
    code: &str,
    msg: &str,
) {
    let Some(r) = req.message.reply.clone() else {
        return;
    };
    let mut h = async_nats::HeaderMap::new();
    h.insert("Nats-Service-Error", msg);
    h.insert("Nats-Service-Error-Code", code);
    let body = ErrorReply {
        error: msg.into(),
        code: code.into(),
    };
    let body = serde_json::to_vec(&body).expect("replies serialise");
    let _ = nc.publish_with_headers(r, h, Bytes::from(body)).await;
}

impl Agent {
    async fn clock(&self, req: async_nats::service::Request) {
        reply(&self.nc, &req, &ClockReply { now_ns: now_ns() }).await;
    }

    async fn prepare(self: Arc<Self>, req: async_nats::service::Request) {
        let nc = &self.nc;
        let p: Prepare = match serde_json::from_slice(&req.message.payload) {
            Ok(p) => p,
            Err(e) => return refuse(nc, &req, "400", &format!("prepare: {e}")).await,
        };
        if p.protocol != PROTOCOL {
            let msg = format!(
                "agent {} speaks {PROTOCOL}, the coordinator {:?}",
                self.name, p.protocol
            );
            return refuse(nc, &req, "426", &msg).await;
        }
        if p.run.is_empty() || p.part.count < 1 || p.part.index < 0 || p.part.index >= p.part.count
        {
            let msg = format!(
                "prepare: run {:?}, part {} of {}: not a run part",
                p.run, p.part.index, p.part.count
            );
            return refuse(nc, &req, "400", &msg).await;
        }
        let spec = match spec::parse(p.spec.get()) {
            Ok(s) => s,
            Err(e) => {
                return refuse(nc, &req, "400", &format!("agent {}: spec: {e}", self.name)).await
            }
        };
        let units = match plan(&spec, &p.secrets, &self.own, p.publisher_ids.base) {
            Ok(x) => x,
            Err(e) => return refuse(nc, &req, "400", &format!("agent {}: {e}", self.name)).await,
        };
        // Each unit's publisher-id block: which part publishes with its ids.
        let blocks: Vec<crate::live::Block> = units
            .iter()
            .map(|u| u.block(p.part.count as usize))
            .collect();
        // Each workload's clients of this part; a workload without any here is not run.
        let units: Vec<(Unit, usize, usize)> = units
            .into_iter()
            .map(|u| {
                let (lo, hi) = u.clients_of(p.part.index as usize, p.part.count as usize);
                (u, lo, hi)
            })
            .filter(|(_, lo, hi)| hi > lo)
            .collect();
        if units.is_empty() {
            let msg = format!(
                "agent {}: part {} of {} has no clients",
                self.name,
                p.part.index + 1,
                p.part.count
            );
            return refuse(nc, &req, "400", &msg).await;
        }
        let shares: Vec<String> = units
            .iter()
            .map(|(u, lo, hi)| format!("clients {}..{} of {}", lo + 1, hi, u.clients))
            .collect();
        let (start_tx, start_rx) = oneshot::channel();
        let (stop_tx, stop_rx) = watch::channel(false);
        let (ready_tx, ready_rx) = oneshot::channel();
        let (fail_tx, fail_rx) = oneshot::channel::<String>();
        let (ended_tx, ended_rx) = watch::channel(false);
        let running = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let busy = {
            let mut g = self.job.lock().unwrap();
            match g.as_ref() {
                Some(j) => Some(format!("agent {} is busy with run {}", self.name, j.run)),
                None => {
                    *g = Some(Job {
                        run: p.run.clone(),
                        start: Some(start_tx),
                        stop: stop_tx,
                        running: running.clone(),
                    });
                    None
                }
            }
        };
        if let Some(msg) = busy {
            return refuse(nc, &req, "409", &msg).await;
        }
        // The agent runs one part at a time: its senders pace at the Spec's precision (or one
        // chosen from its fastest sender's rate), and its Result's paced groups say which.
        let fastest = spec
            .workloads
            .iter()
            .map(|w| w.pacing.rate / w.clients.max(1) as f64)
            .fold(0.0, f64::max);
        crate::pace::set_precision(spec.pace_precision.0, fastest);
        let run = p.run.clone();
        // The coordinator's heartbeat: silent for LOSS_AFTER, the run stops.
        let watch_sub = nc.subscribe(format!("natsperf.run.{run}.hb")).await;
        match watch_sub {
            Ok(mut sub) => {
                let (agent, mut ended) = (self.clone(), ended_rx.clone());
                let run = run.clone();
                tokio::spawn(async move {
                    loop {
                        tokio::select! {
                            _ = ended.changed() => break,
                            m = tokio::time::timeout(LOSS_AFTER, sub.next()) => match m {
                                Ok(Some(_)) => continue,
                                _ => {
                                    log(format!("run {run}: the coordinator is silent (no heartbeat for {LOSS_AFTER:?}): stopping"));
                                    agent.end(&run);
                                    break;
                                }
                            },
                        }
                    }
                    let _ = sub.unsubscribe().await;
                });
            }
            Err(e) => {
                *self.job.lock().unwrap() = None;
                let msg = format!("agent {}: watch the coordinator: {e}", self.name);
                return refuse(nc, &req, "500", &msg).await;
            }
        }
        // What the clients report while they run: their counts, their intervals (asked
        // for), and the clock skew of another part's publishers (offsets for every part).
        let (series_tx, series_rx) = match p.intervals {
            true => {
                let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            false => (None, None),
        };
        let clocks = (p.publisher_ids.base != 0
            && p.clock_offsets_ns.len() == p.part.count as usize)
            .then(|| {
                Arc::new(crate::live::PartClocks {
                    base: p.publisher_ids.base,
                    blocks: blocks.clone(),
                    index: p.part.index as usize,
                    offsets: p.clock_offsets_ns.clone(),
                })
            });
        let probe = crate::live::Probe::new(series_tx, clocks);
        // Heartbeats until the Result is out.
        {
            let (nc, id, run, running, mut ended, probe) = (
                nc.clone(),
                self.id.clone(),
                run.clone(),
                running.clone(),
                ended_rx.clone(),
                probe.without_series(),
            );
            tokio::spawn(async move {
                let subject = format!("natsperf.run.{run}.{id}.hb");
                loop {
                    let hb = Heartbeat {
                        run: run.clone(),
                        agent: id.clone(),
                        state: if running.load(Ordering::Relaxed) {
                            "running"
                        } else {
                            "prepared"
                        }
                        .into(),
                        msgs: probe.total(),
                        at_ns: now_ns(),
                    };
                    let _ = nc
                        .publish(
                            subject.clone(),
                            Bytes::from(serde_json::to_vec(&hb).unwrap()),
                        )
                        .await;
                    tokio::select! {
                        _ = ended.changed() => return,
                        _ = tokio::time::sleep(HEARTBEAT_EVERY) => {},
                    }
                }
            });
        }
        // A coordinator that never starts the run does not hold the agent.
        {
            let (agent, run, mut ended) = (self.clone(), run.clone(), ended_rx.clone());
            tokio::spawn(async move {
                tokio::select! {
                    _ = ended.changed() => {},
                    _ = tokio::time::sleep(PREPARE_TIMEOUT) => {
                        let prepared = agent.job.lock().unwrap().as_ref().is_some_and(|j| j.run == run && j.start.is_some());
                        if prepared {
                            log(format!("run {run}: not started within {PREPARE_TIMEOUT:?}, closed"));
                            agent.end(&run);
                        }
                    }
                }
            });
        }
        // The run itself: every workload prepared now, released together by start, one
        // Result published at the end.
        {
            let agent = self.clone();
            let mut runs = Vec::new();
            let mut starts = Vec::new();
            let mut readies = Vec::new();
            let mut prefixes = Vec::new();
            for (unit, lo, hi) in units {
                let (s_tx, s_rx) = oneshot::channel();
                let (r_tx, r_rx) = oneshot::channel();
                starts.push(s_tx);
                readies.push(r_rx);
                prefixes.push(unit.prefix.clone());
                let gate = Gate {
                    lo,
                    hi,
                    ready: r_tx,
                    start: s_rx,
                    stop: stop_rx.clone(),
                    probe: probe.for_unit(unit.prefix.clone()),
                };
                runs.push(run_unit(unit.plan, unit.target, gate));
            }
            // The intervals go out as they close; the forwarder ends once every client's
            // recorder (each holding a sender) is gone, so all are out before the Result.
            let forwarder = series_rx.map(|mut rx| {
                let (nc, subject, run, id) = (
                    self.nc.clone(),
                    format!("natsperf.run.{run}.{}.interval", self.id),
                    run.clone(),
                    self.id.clone(),
                );
                tokio::spawn(async move {
                    while let Some(sl) = rx.recv().await {
                        let iv = Interval {
                            run: run.clone(),
                            agent: id.clone(),
                            t: sl.start,
                            src: sl.src,
                            msgs: sl.msgs,
                            bytes: sl.bytes,
                            lat: sl.lat.unwrap_or_default(),
                        };
                        let b = Bytes::from(serde_json::to_vec(&iv).expect("intervals serialise"));
                        let _ = nc.publish(subject.clone(), b).await;
                    }
                })
            });
            let last_beat = probe.without_series();
            drop(probe);
            tokio::spawn(async move {
                // start reaches every workload; a run stopped before it drops them all.
                if let Ok(at) = start_rx.await {
                    for s in starts {
                        let _ = s.send(at);
                    }
                }
            });
            tokio::spawn(async move {
                for r in readies {
                    if r.await.is_err() {
                        return; // that workload failed: its error answers the prepare
                    }
                }
                let _ = ready_tx.send(());
            });
            tokio::spawn(async move {
                let outs = futures::future::join_all(runs).await;
                if let Some(f) = forwarder {
                    let _ = f.await;
                }
                // A last heartbeat with the final count, so progress ends at the run's total.
                let hb = Heartbeat {
                    run: run.clone(),
                    agent: agent.id.clone(),
                    state: "running".into(),
                    msgs: last_beat.total(),
                    at_ns: now_ns(),
                };
                let _ = agent
                    .nc
                    .publish(
                        format!("natsperf.run.{run}.{}.hb", agent.id),
                        Bytes::from(serde_json::to_vec(&hb).unwrap()),
                    )
                    .await;
                let out = combine(outs, prefixes);
                let err = out.as_ref().err().cloned();
                agent.publish(&run, out).await;
                let _ = ended_tx.send(true);
                {
                    let mut g = agent.job.lock().unwrap();
                    if g.as_ref().is_some_and(|j| j.run == run) {
                        *g = None;
                    }
                }
                if let Some(e) = err {
                    let _ = fail_tx.send(e);
                }
            });
        }
        tokio::select! {
            Ok(()) = ready_rx => {
                log(format!("run {}: prepared part {} of {} ({}) for natsperf {}", p.run, p.part.index + 1, p.part.count, shares.join("; "), p.version));
                reply(nc, &req, &OkReply { ok: true }).await
            }
            e = fail_rx => {
                let msg = format!("agent {}: {}", self.name, e.unwrap_or_else(|_| "the run ended".into()));
                refuse(nc, &req, "500", &msg).await
            }
        }
    }

    async fn start(&self, req: async_nats::service::Request) {
        let st: Start = match serde_json::from_slice(&req.message.payload) {
            Ok(s) => s,
            Err(e) => return refuse(&self.nc, &req, "400", &format!("start: {e}")).await,
        };
        let sent = {
            let mut g = self.job.lock().unwrap();
            match g.as_mut().filter(|j| j.run == st.run) {
                Some(j) => match j.start.take() {
                    Some(tx) => {
                        j.running.store(true, Ordering::Relaxed);
                        tx.send(st.at_ns).is_ok()
                    }
                    None => false,
                },
                None => false,
            }
        };
        if !sent {
            let msg = format!(
                "agent {}: no prepared run {} (not prepared, already started or stopped)",
                self.name, st.run
            );
            return refuse(&self.nc, &req, "409", &msg).await;
        }
        log(format!(
            "run {}: starting in {} ms",
            st.run,
            (st.at_ns - now_ns()) / 1_000_000
        ));
        reply(&self.nc, &req, &OkReply { ok: true }).await
    }

    async fn stop(&self, req: async_nats::service::Request) {
        let st: StopMsg = match serde_json::from_slice(&req.message.payload) {
            Ok(s) => s,
            Err(e) => return refuse(&self.nc, &req, "400", &format!("stop: {e}")).await,
        };
        self.end(&st.run);
        reply(&self.nc, &req, &OkReply { ok: true }).await
    }

    /// Cancels the run: a running one ends with its partial Result, a prepared one is closed.
    fn end(&self, run: &str) {
        let mut g = self.job.lock().unwrap();
        if let Some(j) = g.as_mut().filter(|j| j.run == run) {
            log(format!("run {run}: stopping"));
            let _ = j.stop.send(true);
            j.start.take();
        }
    }

    /// Publishes the run's Result in chunks (or why there is none).
    async fn publish(&self, run: &str, out: Result<crate::result::ResultDoc, String>) {
        let subject = format!("natsperf.run.{run}.{}.result", self.id);
        let chunks = match &out {
            Ok(doc) => {
                let data = serde_json::to_vec(doc).expect("a Result always serialises");
                let max = self.nc.server_info().max_payload;
                chunk(run, &self.id, &data, max)
            }
            Err(e) => vec![ResultChunk {
                run: run.into(),
                agent: self.id.clone(),
                chunk: 0,
                chunks: 1,
                data: String::new(),
                error: e.clone(),
            }],
        };
        for c in &chunks {
            let b = Bytes::from(serde_json::to_vec(c).expect("chunks serialise"));
            if let Err(e) = self.nc.publish(subject.clone(), b).await {
                log(format!("run {run}: publish result: {e}"));
            }
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), self.nc.flush()).await;
        match out {
            Ok(doc) => log(format!(
                "run {run}: ended ({}), Result sent in {} message(s)",
                doc.stop.reason,
                chunks.len()
            )),
            Err(e) => log(format!("run {run}: failed: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn vectors() -> Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/vectors/agent.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("agent vectors")).unwrap()
    }

    fn s(v: &Value, k: &str) -> String {
        v[k].as_str().unwrap_or_default().to_string()
    }

    /// Every message of testdata/vectors/agent.json decodes to its fields here as in Go, and
    /// what this agent sends encodes to the same wire bytes.
    #[test]
    fn shared_message_vectors() {
        let v = vectors();
        let mut seen = std::collections::BTreeSet::new();
        for m in v["messages"].as_array().unwrap() {
            let (ty, wire, f) = (s(m, "type"), s(m, "wire"), &m["fields"]);
            seen.insert(ty.clone());
            match ty.as_str() {
                "clock_reply" => {
                    let c: ClockReply = serde_json::from_str(&wire).unwrap();
                    assert_eq!(c.now_ns, f["now_ns"].as_i64().unwrap());
                    assert_eq!(serde_json::to_string(&c).unwrap(), wire);
                }
                "prepare" => {
                    let p: Prepare = serde_json::from_str(&wire).unwrap();
                    assert_eq!(p.protocol, s(f, "protocol"));
                    assert_eq!(p.protocol, PROTOCOL);
                    assert_eq!(p.version, s(f, "version"));
                    assert_eq!(p.run, s(f, "run"));
                    let sp = spec::parse(p.spec.get()).unwrap();
                    assert_eq!(sp.workloads[0].kind, s(f, "spec_kind"));
                    assert_eq!(sp.workloads[0].clients, f["spec_clients"].as_i64().unwrap());
                    assert_eq!(p.secrets.password, s(f, "password"));
                    assert_eq!(p.secrets.token, s(f, "token"));
                    assert_eq!(p.part.index, f["part_index"].as_i64().unwrap());
                    assert_eq!(p.part.count, f["part_count"].as_i64().unwrap());
                    assert_eq!(
                        p.publisher_ids.base as i64,
                        f["publisher_ids_base"].as_i64().unwrap()
                    );
                    let offsets: Vec<String> =
                        p.clock_offsets_ns.iter().map(|o| o.to_string()).collect();
                    assert_eq!(offsets.join(","), s(f, "clock_offsets_ns"));
                }
                "start" => {
                    let st: Start = serde_json::from_str(&wire).unwrap();
                    assert_eq!(st.run, s(f, "run"));
                    assert_eq!(st.at_ns, f["at_ns"].as_i64().unwrap());
                    assert_eq!(serde_json::to_string(&st).unwrap(), wire);
                }
                "stop" => {
                    let st: StopMsg = serde_json::from_str(&wire).unwrap();
                    assert_eq!(st.run, s(f, "run"));
                    assert_eq!(serde_json::to_string(&st).unwrap(), wire);
                }
                "ok" => {
                    assert_eq!(serde_json::to_string(&OkReply { ok: true }).unwrap(), wire);
                }
                "error" => {
                    let body = ErrorReply {
                        error: s(f, "error"),
                        code: s(f, "code"),
                    };
                    assert_eq!(serde_json::to_string(&body).unwrap(), wire);
                }
                "heartbeat" => {
                    let hb: Heartbeat = serde_json::from_str(&wire).unwrap();
                    assert_eq!(
                        (hb.run.as_str(), hb.agent.as_str()),
                        (&*s(f, "run"), &*s(f, "agent"))
                    );
                    assert_eq!(hb.state, s(f, "state"));
                    assert_eq!(hb.msgs, f["msgs"].as_i64().unwrap());
                    assert_eq!(hb.at_ns, f["at_ns"].as_i64().unwrap());
                    assert_eq!(serde_json::to_string(&hb).unwrap(), wire);
                }
                "result_chunk" => {
                    let c: ResultChunk = serde_json::from_str(&wire).unwrap();
                    assert_eq!((c.chunk, c.chunks), (0, 1));
                    let data = base64::engine::general_purpose::STANDARD
                        .decode(&c.data)
                        .unwrap();
                    assert_eq!(String::from_utf8(data.clone()).unwrap(), s(f, "data_text"));
                    assert_eq!(c.error, s(f, "error"));
                    assert_eq!(serde_json::to_string(&c).unwrap(), wire);
                    if c.error.is_empty() {
                        // What this agent sends for that Result, byte for byte.
                        let ours = chunk(&c.run, &c.agent, &data, 1 << 20);
                        assert_eq!(serde_json::to_string(&ours[0]).unwrap(), wire);
                    }
                }
                _ => {} // coordinator-side messages (its heartbeat, intervals)
            }
        }
        for ty in [
            "clock_reply",
            "prepare",
            "start",
            "stop",
            "heartbeat",
            "result_chunk",
        ] {
            assert!(seen.contains(ty), "no {ty} vector");
        }
    }

    #[test]
    fn shared_range_vectors() {
        for r in vectors()["ranges"].as_array().unwrap() {
            let g = |k: &str| r[k].as_u64().unwrap() as usize;
            assert_eq!(
                range(g("n"), g("index"), g("count")),
                (g("lo"), g("hi")),
                "{r}"
            );
        }
    }

    #[test]
    fn chunks_reassemble_under_the_limit() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let chunks = chunk("R1", "AGENT1", &data, 2048);
        assert!(chunks.len() > 1);
        let mut joined = Vec::new();
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!((c.chunk, c.chunks), (i, chunks.len()));
            assert!(serde_json::to_vec(c).unwrap().len() <= 2048);
            joined.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(&c.data)
                    .unwrap(),
            );
        }
        assert_eq!(joined, data);
    }

    fn own() -> Target {
        Target {
            url: "nats://127.0.0.1:4222".into(),
            conn: ConnArgs::default(),
        }
    }

    /// A Spec as a coordinator sends it, read and planned.
    fn plan_json(
        spec: &Value,
        secrets: &Secrets,
        own: &Target,
        base: u32,
    ) -> Result<Vec<Unit>, String> {
        plan(&spec::parse(&spec.to_string())?, secrets, own, base)
    }

    /// The plan of a Spec's only workload.
    fn one(
        spec: &Value,
        secrets: &Secrets,
        own: &Target,
        base: u32,
    ) -> Result<(Plan, Target, usize), String> {
        let mut units = plan_json(spec, secrets, own, base)?;
        assert_eq!(units.len(), 1);
        let u = units.remove(0);
        assert!(u.prefix.is_none());
        Ok((u.plan, u.target, u.clients))
    }

    /// A Spec of two workloads (a scenario cell's sub and pub) runs both, named and
    /// numbered as the Go engine names them, each with its own publisher-id block.
    // As TestPartInstancesWhole and engine.Unit: each instance a unit of its own id block,
    // named pod1..pod3, run whole by the part whose range holds it; an unnamed workload beside
    // them split by client.
    #[test]
    fn plans_instances_whole() {
        let spec: Value = serde_json::from_str(
            r#"{"version":"natsperf.spec/v1","workloads":[
                {"kind":"pub","name":"pod","instances":3,"clients":2,"pacing":{"msgs":100},"config":{"subject":"foo"}},
                {"kind":"sub","clients":2,"config":{"subject":"foo"}}]}"#,
        )
        .unwrap();
        let units = plan_json(&spec, &Secrets::default(), &own(), 8192).unwrap();
        let prefixes: Vec<_> = units.iter().map(|u| u.prefix.clone().unwrap()).collect();
        assert_eq!(prefixes, ["pod1", "pod2", "pod3", "w2-1"]);
        let bases: Vec<_> = units
            .iter()
            .map(|u| match &u.plan {
                Plan::Core(_, b) => b.pub_id_base.unwrap(),
                _ => 0,
            })
            .collect();
        assert_eq!(bases, [8192, 8192 + 4096, 8192 + 2 * 4096, 8192 + 3 * 4096]);
        let parts = |count: usize| -> Vec<Vec<(usize, usize)>> {
            (0..count)
                .map(|p| units.iter().map(|u| u.clients_of(p, count)).collect())
                .collect()
        };
        // 2 parts: pod1 on part 0, pod2 and pod3 on part 1, whole; the sub's 2 clients split.
        assert_eq!(
            parts(2),
            [
                vec![(0, 2), (0, 0), (0, 0), (0, 1)],
                vec![(0, 0), (0, 2), (0, 2), (1, 2)]
            ]
        );
        let blocks: Vec<_> = units.iter().map(|u| u.block(2)).collect();
        use crate::live::Block;
        assert_eq!(
            blocks,
            [
                Block::Whole(0),
                Block::Whole(1),
                Block::Whole(1),
                Block::Split(2)
            ]
        );
        // Workloads sharing a name are its instances: whole, numbered on.
        let named: Value = serde_json::from_str(
            r#"{"version":"natsperf.spec/v1","workloads":[
                {"kind":"pub","name":"pod","clients":1,"config":{"subject":"a"}},
                {"kind":"pub","name":"pod","clients":1,"config":{"subject":"b"}}]}"#,
        )
        .unwrap();
        let units = plan_json(&named, &Secrets::default(), &own(), 0).unwrap();
        let got: Vec<_> = units
            .iter()
            .map(|u| (u.prefix.clone().unwrap(), u.whole))
            .collect();
        assert_eq!(
            got,
            [
                ("pod1".to_string(), Some((0, 2))),
                ("pod2".to_string(), Some((1, 2)))
            ]
        );
    }

    #[test]
    fn plans_several_workloads() {
        let spec: Value = serde_json::from_str(
            r#"{"version":"natsperf.spec/v1","workloads":[
                {"kind":"sub","name":"sub","clients":2,"config":{"subject":"foo"}},
                {"kind":"pub","clients":1,"pacing":{"rate":1000},"config":{"subject":"foo"}}]}"#,
        )
        .unwrap();
        let units = plan_json(&spec, &Secrets::default(), &own(), 8192).unwrap();
        let prefixes: Vec<_> = units.iter().map(|u| u.prefix.clone().unwrap()).collect();
        assert_eq!(prefixes, ["sub1", "w2-1"]);
        match (&units[0].plan, &units[1].plan) {
            (Plan::Core(Kind::Sub, s), Plan::Core(Kind::Pub, p)) => {
                assert_eq!(
                    (s.pub_id_base, p.pub_id_base),
                    (Some(8192), Some(8192 + 4096))
                );
            }
            _ => panic!("want a sub and a pub"),
        }
        let mut with_latency = spec.clone();
        with_latency["workloads"][1]["kind"] = "latency".into();
        assert!(plan_json(&with_latency, &Secrets::default(), &own(), 0)
            .err()
            .unwrap()
            .contains("latency runs alone"));
    }

    // What a Spec sets and natsperf-rust would not do is refused by its flag, never ignored;
    // what it does (the text filler, a subscription unbounded in bytes) runs.
    #[test]
    fn refuses_keys_it_does_not_honour() {
        let none = Secrets::default();
        let doc = |target: &str, w: &str| -> Value {
            serde_json::from_str(&format!(
                r#"{{"version":"natsperf.spec/v1","target":{{{target}}},"workloads":[{w}]}}"#
            ))
            .unwrap()
        };
        for (spec, flag) in [
            (
                doc(
                    "",
                    r#"{"kind":"pub","payload_fill":"zeros","config":{"subject":"foo"}}"#,
                ),
                "--payload-fill zeros",
            ),
            (
                doc(
                    "",
                    r#"{"kind":"sub","config":{"subject":"foo","pending_bytes":1024}}"#,
                ),
                "--pending-bytes",
            ),
            (
                doc(
                    r#""tls_insecure":true"#,
                    r#"{"kind":"pub","config":{"subject":"foo"}}"#,
                ),
                "--tls-insecure",
            ),
        ] {
            let err = one(&spec, &none, &own(), 0).err().unwrap();
            assert!(err.contains(flag) && err.contains("--client go"), "{err}");
        }
        for spec in [
            doc(
                "",
                r#"{"kind":"pub","payload_fill":"text","config":{"subject":"foo"}}"#,
            ),
            doc(
                "",
                r#"{"kind":"sub","config":{"subject":"foo","pending_bytes":-1}}"#,
            ),
        ] {
            assert!(one(&spec, &none, &own(), 0).is_ok());
        }
    }

    /// kv put and kv get plan the workload's config with the setup bucket it names: only the
    /// settings the Spec sets are asked of an existing bucket; a bucket to delete after the run
    /// is refused (natsperf-rust deletes nothing).
    #[test]
    fn plans_kv_with_its_setup_bucket() {
        let none = Secrets::default();
        let spec = |kind: &str, pacing: &str, bucket: &str| -> Value {
            serde_json::from_str(&format!(
                r#"{{"version":"natsperf.spec/v1","setup":{{"buckets":[{{"name":"cache",{bucket}}}]}},"workloads":[{{"kind":"{kind}","clients":2,"pacing":{{{pacing}}},"config":{{"bucket":"cache","size":64,"randomize":10,"ack_timeout":"2s"}}}}]}}"#
            ))
            .unwrap()
        };
        let s = spec(
            "kv put",
            r#""msgs":100,"rate":50,"max_inflight":8"#,
            r#""storage":"memory","history":3,"max_bytes":4096,"compression":"s2","purge":true,"force":true"#,
        );
        match one(&s, &none, &own(), 0).unwrap().0 {
            Plan::Kv(a) => {
                assert!(a.put && a.command() == "kv put" && a.bucket == "cache");
                assert_eq!(
                    (a.storage.as_deref(), a.replicas, a.history, a.compression),
                    (Some("memory"), None, Some(3), Some(true))
                );
                assert_eq!(
                    (a.max_bytes, a.purge, a.force, a.randomize),
                    (4096, true, true, 10)
                );
                assert_eq!(a.ack_timeout, Duration::from_secs(2));
                assert_eq!(
                    (a.bench.msgs, a.bench.size, a.bench.max_inflight),
                    (Some(100), 64, 8)
                );
            }
            _ => panic!("kv put is not a kv plan"),
        }
        match one(
            &spec("kv get", r#""msgs":100"#, r#""replicas":1"#),
            &none,
            &own(),
            0,
        )
        .unwrap()
        .0
        {
            Plan::Kv(a) => assert!(!a.put && a.replicas == Some(1) && a.storage.is_none()),
            _ => panic!("kv get is not a kv plan"),
        }
        for (s, want) in [
            (
                spec("kv get", r#""rate":10,"duration":"1s""#, r#""history":1"#),
                "--rate",
            ),
            (
                spec("kv put", r#""msgs":10"#, r#""delete_after":true"#),
                "delete_after",
            ),
        ] {
            let err = one(&s, &none, &own(), 0).err().unwrap();
            assert!(err.contains(want), "{err}");
        }
    }

    #[test]
    fn plans_supported_kinds_and_refuses_others() {
        let spec = |kind: &str, extra: &str| -> Value {
            serde_json::from_str(&format!(
                r#"{{"version":"natsperf.spec/v1","workloads":[{{"kind":"{kind}","clients":4,"pacing":{{"msgs":1000,"rate":500,"duration":"2s"}},"config":{{"subject":"foo","size":64{extra}}}}}]}}"#
            ))
            .unwrap()
        };
        let none = Secrets::default();
        match one(&spec("pub", ""), &none, &own(), 8192).unwrap() {
            (Plan::Core(Kind::Pub, b), t, n) => {
                assert_eq!((n, b.clients, b.msgs, b.size), (4, 4, Some(1000), 64));
                assert_eq!((b.rate, b.duration), (500.0, Duration::from_secs(2)));
                assert_eq!(b.pub_id_base, Some(8192));
                assert_eq!(t.url, own().url);
            }
            _ => panic!("pub is not a core publisher plan"),
        }
        assert!(matches!(
            one(&spec("service request", r#","timeout":"2s""#), &none, &own(), 0).unwrap().0,
            Plan::Core(Kind::Request, ref b) if b.timeout == Duration::from_secs(2)
        ));
        assert!(matches!(
            one(&spec("latency", ""), &none, &own(), 0).unwrap(),
            (Plan::Latency(_), _, 1)
        ));
        assert!(matches!(
            one(&spec("js pub async", r#","batch":100"#), &none, &own(), 0).unwrap().0,
            Plan::Js(ref a) if a.window() == 100 && a.stream == "benchstream" && !a.sync
        ));
        assert!(matches!(
            one(&spec("js pub sync", ""), &none, &own(), 0).unwrap().0,
            Plan::Js(ref a) if a.window() == 1 && a.sync && a.command() == "js pub sync"
        ));
        let err = one(&spec("js consume", ""), &none, &own(), 0)
            .err()
            .unwrap();
        assert!(
            err.contains("not \"js consume\"") && err.contains("--client go"),
            "{err}"
        );
        assert!(matches!(
            one(&spec("pub", r#","multisubject":true,"multisubject_max":7"#), &none, &own(), 0).unwrap().0,
            Plan::Core(Kind::Pub, ref b) if b.multisubject && b.multisubject_max == 7
        ));
        assert!(matches!(
            one(&spec("js pub async", r#","dedup":true,"multisubject":true"#), &none, &own(), 0).unwrap().0,
            Plan::Js(ref a) if a.dedup && a.bench.multisubject && a.bench.multisubject_max == 100_000
        ));
        let err = one(&spec("sub", r#","queue":"q""#), &none, &own(), 0)
            .err()
            .unwrap();
        assert!(
            err.contains("queue") && err.contains("--client go"),
            "{err}"
        );
        // A key the kind does not have is refused where it is, as Go's spec refuses it.
        for (kind, extra, key) in [
            ("service request", r#","multisubject":true"#, "multisubject"),
            ("pub", r#","dedup":true"#, "dedup"),
            ("js pub sync", r#","batch":10"#, "batch"),
        ] {
            let err = one(&spec(kind, extra), &none, &own(), 0).err().unwrap();
            assert_eq!(err, format!("workloads[0].config: unknown field {key:?}"));
        }
        let mut s = spec("pub", "");
        s["workloads"][0]["pacing"]["steps"] = serde_json::json!([100.0, 200.0]);
        let err = one(&s, &none, &own(), 0).err().unwrap();
        assert!(
            err.contains("constant rate") && err.contains("--client go"),
            "{err}"
        );
        for (key, what) in [
            (r#""verify":true"#, "--verify"),
            (r#""no_latency":true"#, "--no-latency"),
            (r#""faults":{"inject":["1s:kill-leader"]}"#, "faults"),
        ] {
            let mut s = spec("pub", "");
            let extra: Value = serde_json::from_str(&format!("{{{key}}}")).unwrap();
            for (k, v) in extra.as_object().unwrap() {
                s[k] = v.clone();
            }
            let err = one(&s, &none, &own(), 0).err().unwrap();
            assert_eq!(
                err,
                format!("natsperf-rust does not run {what}: use --client go")
            );
        }
        // The Spec's servers and the prepare's secrets.
        let mut s = spec("pub", "");
        s["target"] = serde_json::json!({"servers": ["nats://127.0.0.1:4333", "nats://127.0.0.1:4334"], "user": "u"});
        let secrets = Secrets {
            password: "p".into(),
            token: String::new(),
        };
        let (_, t, _) = one(&s, &secrets, &own(), 0).unwrap();
        assert_eq!(t.url, "nats://127.0.0.1:4333,nats://127.0.0.1:4334");
        assert_eq!(
            (t.conn.user.as_deref(), t.conn.password.as_deref()),
            (Some("u"), Some("p"))
        );
        s["target"] = serde_json::json!({"embedded": {}});
        assert!(one(&s, &none, &own(), 0)
            .err()
            .unwrap()
            .contains("embedded"));
    }
}

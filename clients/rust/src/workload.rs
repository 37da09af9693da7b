//! The workloads: core pub, sub, service serve and service request. Each client is one
//! connection and one tokio task with its own Recorder (no shared state per message); the run
//! ends at the clients' share, --duration, --idle-timeout (receivers) or Ctrl-C.

use crate::clock::Clock;
use crate::conn::{ConnArgs, Want};
use crate::pace::Constant;
use crate::record::Recorder;
use crate::result::{self, ResultDoc, Stop};
use crate::settings::Settings;
use crate::stamp::{self, Ids};
use futures::StreamExt;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pub,
    Sub,
    Serve,
    Request,
    /// Handled by js.rs; listed for the shared flag checks.
    JsPubAsync,
}

/// The queue group every responder joins (natsperf's `core.ServiceQueue`).
const SERVICE_QUEUE: &str = "natsperf-service";

/// What every client task gets.
pub(crate) struct Ctx {
    pub client: async_nats::Client,
    pub bench: Settings,
    pub index: usize,
    pub clock: Clock,
    pub stop: watch::Receiver<bool>,
    /// Set with `stop`; senders poll this flag per message (a relaxed load, where the watch
    /// channel's borrow would take a lock per message).
    pub stopped: Arc<AtomicBool>,
    pub slow: Arc<AtomicI64>,
    /// The agent's probe (the command line's watches nothing).
    pub probe: crate::live::Probe,
}

/// Each client's share of `total`, as nats bench splits it: the remainder goes to the first ones.
pub(crate) fn share(total: u64, clients: usize, index: usize) -> u64 {
    let c = clients as u64;
    total / c + u64::from((index as u64) < total % c)
}

pub async fn run(
    kind: Kind,
    url: &str,
    conn: &ConnArgs,
    bench: Settings,
    gate: Option<crate::gate::Gate>,
) -> Result<ResultDoc, String> {
    let mut run =
        Clients::connect(url, conn, &bench, gate, bench.pending_msgs, bench.timeout).await?;
    let (lo, range, clients) = (run.range.start, run.range.clone(), run.conns.clone());
    let info = clients[0].server_info();

    // Receivers subscribe before the start, and say so on stderr so a driver can start publishers.
    let mut subs = Vec::new();
    if matches!(kind, Kind::Sub | Kind::Serve) {
        for c in &clients {
            let sub = match kind {
                Kind::Serve => {
                    c.queue_subscribe(bench.subject.clone(), SERVICE_QUEUE.into())
                        .await
                }
                _ => c.subscribe(receive_subject(&bench)).await,
            }
            .map_err(|e| format!("subscribe {}: {e}", receive_subject(&bench)))?;
            c.flush().await.map_err(|e| format!("flush: {e}"))?;
            subs.push(sub);
        }
        eprintln!(
            "natsperf-rust: ready, {} client(s) on {}",
            clients.len(),
            bench.subject
        );
    }
    run.release().await?;
    let cpu = crate::cpu::Sample::now();
    let (clock, ids) = (run.clock, run.ids);
    let epoch = clock.now();
    let mut tasks = Vec::new();
    let mut subs = subs.into_iter();
    for k in 0..clients.len() {
        let index = lo + k;
        let ctx = run.ctx(k, &bench);
        let id = ids.for_index(index);
        tasks.push(match kind {
            Kind::Pub | Kind::JsPubAsync => tokio::spawn(publish(ctx, id, epoch)),
            Kind::Request => tokio::spawn(request(ctx, id, epoch)),
            Kind::Sub | Kind::Serve => tokio::spawn(receive(
                ctx,
                subs.next().expect("one subscription per client"),
                kind == Kind::Serve,
                epoch,
            )),
        });
    }
    let (mut recs, failure) = join_clients(tasks).await?;
    let cpu = cpu.and_then(|c| c.until_now(handled(&recs)));
    let end = clock.now();
    let expected: Vec<i64> = range
        .map(|i| match kind {
            Kind::Sub => bench.msgs() as i64,
            _ => share(bench.msgs(), bench.clients, i) as i64,
        })
        .collect();
    let reached = recs
        .iter()
        .zip(&expected)
        .all(|(r, &e)| e == 0 || r.progress().max(r.msgs) >= e);
    let idle = !reached && bench.duration.is_zero() && matches!(kind, Kind::Sub | Kind::Serve);
    let stop = Stop::of(run.interrupted(), failure, idle.then(String::new));
    let target =
        (bench.rate > 0.0 && matches!(kind, Kind::Pub | Kind::Request)).then_some(bench.rate);
    let (name, kind_name, command) = match kind {
        Kind::Pub | Kind::JsPubAsync => ("pub", "Core NATS publisher", "pub"),
        Kind::Sub => ("sub", "Core NATS subscriber", "sub"),
        Kind::Serve => ("serve", "Service responder", "service serve"),
        Kind::Request => ("request", "Service requester", "service request"),
    };
    let receivers = matches!(kind, Kind::Sub | Kind::Serve);
    let spec = result::GroupSpec {
        name,
        kind: kind_name,
        receivers,
        shared: kind == Kind::Serve,
        target_rate: target,
        epoch,
    };
    let group = result::group(spec, &expected, &mut recs);
    let mut echo = bench.echo();
    echo["idle_timeout"] = (bench.idle_timeout.as_nanos() as u64).into();
    let settings = serde_json::json!({
        "bench": echo,
        "workload": {
            "subject": bench.subject,
            "pub_id_base": ids.0,
            "multisubject": bench.multisubject.then_some(bench.multisubject_max),
        },
        "connection": conn.echo(url),
        "client": result::client_settings(&info),
    });
    let mut doc = ResultDoc::new(command, settings, epoch, end, stop, vec![group]);
    doc.cpu = cpu;
    Ok(doc)
}

/// Every message the clients handled, sent plus received, warm-up included: the Result's
/// `cpu.msgs` (Go's sum of `Recorder.Progress`).
pub(crate) fn handled(recs: &[Recorder]) -> i64 {
    recs.iter().map(|r| r.msgs).sum()
}

/// The clients of a run, or of an agent's part of it (clients lo..hi of the whole run's, each at
/// its global index: its share, its place in the schedule, its publisher id), connected, with
/// what their tasks share: the clock, the stop signal (Ctrl-C or the coordinator's), the
/// publisher ids and the agent's probe.
pub(crate) struct Clients {
    pub range: std::ops::Range<usize>,
    pub conns: Vec<async_nats::Client>,
    pub clock: Clock,
    pub ids: Ids,
    slows: Vec<Arc<AtomicI64>>,
    hold: Option<crate::gate::Hold>,
    stop: watch::Receiver<bool>,
    // Held for the run: a dropped sender would read as a stop to every receiver.
    _stop_tx: watch::Sender<bool>,
    interrupted: Arc<AtomicBool>,
    probe: crate::live::Probe,
}

impl Clients {
    /// Connects the clients (subscriptions buffering `capacity` messages, requests timing out
    /// after `request_timeout`) and arms the stop signal.
    pub(crate) async fn connect(
        url: &str,
        conn: &ConnArgs,
        bench: &Settings,
        gate: Option<crate::gate::Gate>,
        capacity: usize,
        request_timeout: Duration,
    ) -> Result<Clients, String> {
        let (range, hold, agent_stop, probe) = match gate {
            Some(g) => {
                let (r, h, s, p) = g.split();
                (r, Some(h), Some(s), p)
            }
            None => (0..bench.clients, None, None, Default::default()),
        };
        let mut conns = Vec::with_capacity(range.len());
        let mut slows = Vec::with_capacity(range.len());
        for i in range.clone() {
            let slow = Arc::new(AtomicI64::new(0));
            let want = Want {
                name: format!("natsperf-rust-{}", i + 1),
                capacity,
                request_timeout,
                slow: slow.clone(),
            };
            conns.push(crate::conn::connect(url, conn, want).await?);
            slows.push(slow);
        }
        let (stop_tx, stop) = watch::channel(false);
        let interrupted = Arc::new(AtomicBool::new(false));
        crate::gate::on_stop(agent_stop, interrupted.clone(), stop_tx.clone());
        Ok(Clients {
            range,
            conns,
            clock: Clock::new(),
            ids: bench.pub_id_base.map(Ids).unwrap_or_else(Ids::random),
            slows,
            hold,
            stop,
            _stop_tx: stop_tx,
            interrupted,
            probe,
        })
    }

    /// Waits at the agent's start barrier (the command line starts at once).
    pub(crate) async fn release(&mut self) -> Result<(), String> {
        match self.hold.take() {
            Some(h) => h.release().await,
            None => Ok(()),
        }
    }

    /// What client k of this part's gets.
    pub(crate) fn ctx(&self, k: usize, bench: &Settings) -> Ctx {
        Ctx {
            client: self.conns[k].clone(),
            bench: bench.clone(),
            index: self.range.start + k,
            clock: self.clock,
            stop: self.stop.clone(),
            stopped: self.interrupted.clone(),
            slow: self.slows[k].clone(),
            probe: self.probe.clone(),
        }
    }

    /// Whether the run was stopped (Ctrl-C or the coordinator).
    pub(crate) fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }
}

/// When --warmup ends (Unix ns), 0 without one.
pub(crate) fn warmup_end(b: &Settings, epoch: i64) -> i64 {
    if b.warmup.is_zero() {
        0
    } else {
        epoch + b.warmup.as_nanos() as i64
    }
}

pub(crate) type Outcome = Result<Recorder, (Recorder, String)>;

/// Awaits every client task: their recorders in client order and the first failure (empty:
/// none). A task that panicked fails the run.
pub(crate) async fn join_clients(
    tasks: Vec<tokio::task::JoinHandle<Outcome>>,
) -> Result<(Vec<Recorder>, String), String> {
    let mut recs = Vec::with_capacity(tasks.len());
    let mut failure = String::new();
    for t in tasks {
        match t.await {
            Ok(Ok(rec)) => recs.push(rec),
            Ok(Err((rec, e))) => {
                recs.push(rec);
                if failure.is_empty() {
                    failure = e;
                }
            }
            Err(e) => return Err(format!("client task: {e}")),
        }
    }
    Ok((recs, failure))
}

/// The send schedule of one client: message i (0-based) and its intended Unix ns, or None at
/// the end of its share or of --duration. Unpaced, the intended time is the actual one.
pub(crate) struct Schedule {
    pace: Option<Constant>,
    limit: u64,
    /// Unix ns past which nothing is sent (0: none).
    deadline: i64,
    start: Instant,
    epoch: i64,
    clock: Clock,
    next: u64,
    /// The last clock reading (Unix ns).
    now: i64,
    /// Read the clock every 8 messages when unpaced (core publishers only).
    pub(crate) coarse: bool,
    waiter: crate::pace::Waiter,
}

impl Schedule {
    /// A paced sender that did its whole share ran to the slot of all senders after its last
    /// one (as Go's `loop.Schedule` End), so the group's rate is the schedule's; its span
    /// starts at the slot of its first measured send (`Recorder::late`).
    pub(crate) fn paced_span(&self, rec: &mut Recorder) {
        let Some(p) = self.pace else { return };
        // A sender behind schedule keeps its actual last send: the rate stays truthful.
        if self.next > 0 && self.next >= self.limit {
            rec.last = rec
                .last
                .max(self.epoch + p.after(self.next).as_nanos() as i64);
        }
    }

    /// Waits on the runtime's poller (`Waiter::evented`): for the open model, whose task takes
    /// answers while it waits for its next send.
    pub(crate) fn evented(&mut self) {
        self.waiter = crate::pace::Waiter::evented();
    }

    pub(crate) fn new(ctx: &Ctx, epoch: i64) -> Schedule {
        let b = &ctx.bench;
        let pace = (b.rate > 0.0).then_some(Constant {
            rate: b.rate,
            count: b.clients,
            index: ctx.index,
        });
        let mut limit = if b.msgs() > 0 {
            share(b.msgs(), b.clients, ctx.index)
        } else {
            u64::MAX
        };
        if let (Some(p), false) = (pace, b.duration.is_zero()) {
            limit = limit.min(p.total(b.duration));
        }
        let start = Instant::now() - Duration::from_nanos((ctx.clock.now() - epoch).max(0) as u64);
        let d = b.duration.as_nanos() as i64;
        let deadline = match (d, pace) {
            (0, _) => 0,
            (_, None) => epoch + d,
            (_, Some(_)) => epoch + d + (d / 4).min(250_000_000),
        };
        Schedule {
            pace,
            limit,
            deadline,
            start,
            epoch,
            clock: ctx.clock,
            next: 0,
            now: 0,
            coarse: false,
            waiter: crate::pace::Waiter::new(),
        }
    }

    /// Waits until the next message is due; returns (sequence index, intended ns, actual ns).
    /// A paced message's lateness (actual minus intended) goes into `rec`, as Go's
    /// `loop.Schedule` records it: every fixed-rate sender's, whatever it sends.
    pub(crate) async fn next(
        &mut self,
        stop: &mut watch::Receiver<bool>,
        stopped: &AtomicBool,
        rec: &mut Recorder,
    ) -> Option<(u64, i64, i64)> {
        let i = self.next;
        if i >= self.limit || stopped.load(Ordering::Relaxed) {
            return None;
        }
        // (slot, intended): the intended send time is the later of the slot and the waiter's
        // planned wake-up (Waiter::planned), the lateness is recorded from the slot.
        let intended = match self.pace {
            Some(p) => {
                let off = p.intended(i);
                let due = self.start + off;
                // What already fell due goes at once (Go's publisher waits only when nothing
                // is due); the waiter batches the rest at most every MIN_GAP.
                if Instant::now() < due && !self.waiter.until(due, stop).await {
                    return None;
                }
                // Due already, it goes in the last wake-up: intended then if that was later.
                let mut at = off;
                if let Some(planned) = self.waiter.planned() {
                    at = at.max(planned.saturating_duration_since(self.start));
                }
                Some((
                    self.epoch + off.as_nanos() as i64,
                    self.epoch + at.as_nanos() as i64,
                ))
            }
            None => None,
        };
        // --duration is a time limit (Go's loop.Schedule): unpaced at start+duration; paced, the
        // count is the share of rate x duration and a sender behind schedule stops at
        // start + duration + min(duration/4, 250ms).
        // A coarse (unpaced core publisher's) schedule reads the clock every 8 messages (Go's
        // unpaced publisher reads it once per run of up to 64): the stamp's send time and the
        // deadline check are then at most 7 messages old. Requests and JetStream acks time
        // each message.
        let now = if !self.coarse || self.pace.is_some() || i & 7 == 0 {
            self.now = self.clock.now();
            self.now
        } else {
            self.now
        };
        if self.deadline != 0 && now >= self.deadline {
            return None;
        }
        self.next += 1;
        match intended {
            Some((slot, due)) => {
                rec.late(slot, now);
                Some((i, due, now))
            }
            None => Some((i, now, now)),
        }
    }
}

/// What a receiver subscribes to: SUBJECT, or SUBJECT.> with --multisubject (Go's
/// `loop.Wildcard`).
fn receive_subject(b: &Settings) -> String {
    match b.multisubject && !b.subject.ends_with('>') {
        true => format!("{}.>", b.subject),
        false => b.subject.clone(),
    }
}

/// The subjects a publisher cycles through: SUBJECT alone, or with --multisubject SUBJECT.0 ..
/// SUBJECT.(n-1), n = --multisubject-max or the client's share if smaller (Go's
/// `loop.Subjects`), built once so the loop formats nothing.
pub(crate) fn subjects(ctx: &Ctx) -> Vec<async_nats::Subject> {
    let b = &ctx.bench;
    if !b.multisubject {
        return vec![async_nats::Subject::from(b.subject.as_str())];
    }
    let mut n = b.multisubject_max.max(1);
    let own = share(b.msgs(), b.clients, ctx.index);
    if b.msgs() > 0 && own > 0 && own < n {
        n = own;
    }
    (0..n)
        .map(|k| async_nats::Subject::from(format!("{}.{k}", b.subject)))
        .collect()
}

/// Which of `n` subjects message `i` goes to (no division per message for one subject).
pub(crate) fn turn(i: u64, n: usize) -> usize {
    match n {
        1 => 0,
        _ => (i % n as u64) as usize,
    }
}

pub(crate) async fn publish(mut ctx: Ctx, id: u32, epoch: i64) -> Outcome {
    let mut rec = Recorder::new(false, ctx.bench.interval, epoch)
        .with_warmup(warmup_end(&ctx.bench, epoch))
        .with_probe(&ctx.probe, "pub", ctx.index);
    let mut sched = Schedule::new(&ctx, epoch);
    sched.coarse = true;
    let size = ctx.bench.size;
    let mut payloads = stamp::Payloads::new(size);
    let paced = sched.pace.is_some();
    let subjects = subjects(&ctx);
    while let Some((i, intended, now)) = sched.next(&mut ctx.stop, &ctx.stopped, &mut rec).await {
        if size >= stamp::EXT_SIZE && paced {
            stamp::put_ext(payloads.buf(), id, i + 1, intended, now);
        } else if size >= stamp::SIZE {
            stamp::put(payloads.buf(), id, i + 1, intended);
        }
        let subject = &subjects[turn(i, subjects.len())];
        if let Err(e) = ctx.client.publish(subject.clone(), payloads.take()).await {
            rec.events.errors += 1;
            return Err((rec, format!("publish: {e}")));
        }
        rec.sent(now, size);
    }
    if let Err(e) = ctx.client.flush().await {
        return Err((rec, format!("flush: {e}")));
    }
    sched.paced_span(&mut rec);
    Ok(rec)
}

async fn request(mut ctx: Ctx, id: u32, epoch: i64) -> Outcome {
    let mut rec = Recorder::new(true, ctx.bench.interval, epoch)
        .with_warmup(warmup_end(&ctx.bench, epoch))
        .with_probe(&ctx.probe, "request", ctx.index);
    let mut sched = Schedule::new(&ctx, epoch);
    let size = ctx.bench.size;
    let mut payloads = stamp::Payloads::new(size);
    let subject = async_nats::Subject::from(ctx.bench.subject.as_str());
    let name = ctx.bench.subject.clone();
    if let Some(bound) = open_bound(&ctx) {
        let client = ctx.client.clone();
        let (client, subject) = (&client, &subject);
        let start = |_, payload| std::future::ready(Ok(client.request(subject.clone(), payload)));
        let answer = |reply| reply_answer(reply, &name);
        return open_loop(ctx, rec, sched, id, bound, start, answer).await;
    }
    while let Some((i, intended, sent)) = sched.next(&mut ctx.stop, &ctx.stopped, &mut rec).await {
        if size >= stamp::SIZE {
            stamp::put(payloads.buf(), id, i + 1, intended);
        }
        let reply = ctx.client.request(subject.clone(), payloads.take()).await;
        let now = ctx.clock.now();
        let answer = reply_answer(reply, &name);
        if let Err(msg) = record(&mut rec, answer, now, size, intended, sent) {
            return Err((rec, msg));
        }
    }
    sched.paced_span(&mut rec);
    Ok(rec)
}

/// What a request's reply means: a timeout is counted, no responders (or a failed request)
/// ends the client.
fn reply_answer(
    reply: Result<async_nats::Message, async_nats::RequestError>,
    subject: &str,
) -> Answer {
    use async_nats::client::RequestErrorKind;
    match reply {
        Ok(_) => Answer::Ok,
        Err(e) => match e.kind() {
            RequestErrorKind::TimedOut => Answer::Timeout,
            RequestErrorKind::NoResponders => Answer::End {
                msg: format!("no responders on {subject:?}: start `natsperf-rust service serve {subject}` (or natsperf's) first"),
                error: false,
            },
            _ => Answer::End {
                msg: format!("request: {e}"),
                error: false,
            },
        },
    }
}

/// What one operation's answer was, for `record`.
pub(crate) enum Answer {
    /// Answered: recorded with its latencies.
    Ok,
    /// Counted with the timeouts.
    Timeout,
    /// Counted with the errors; the client goes on.
    Error,
    /// The client cannot go on: it ends with `msg`, the operation counted with the errors when
    /// `error` (not a request nobody answered).
    End { msg: String, error: bool },
}

/// Records one operation of `size` bytes answered at `now` (Unix ns), from its intended and
/// its actual send; Err: the client ends with that message.
pub(crate) fn record(
    rec: &mut Recorder,
    answer: Answer,
    now: i64,
    size: usize,
    intended: i64,
    sent: i64,
) -> Result<(), String> {
    match answer {
        Answer::Ok => rec.op_corrected(now, size, now - intended, now - sent),
        Answer::Timeout => rec.events.timeouts += 1,
        Answer::Error => rec.events.errors += 1,
        Answer::End { msg, error } => {
            if error {
                rec.events.errors += 1;
            }
            return Err(msg);
        }
    }
    Ok(())
}

/// The client's bound on operations awaiting answers when it runs the open model (a fixed rate
/// and --max-inflight): its share of --max-inflight, at least 1.
pub(crate) fn open_bound(ctx: &Ctx) -> Option<usize> {
    let b = &ctx.bench;
    (b.rate > 0.0 && b.max_inflight > 0)
        .then(|| share(b.max_inflight, b.clients, ctx.index).max(1) as usize)
}

/// The open model of a fixed-rate sender (Go's `internal/inflight`), for service request,
/// js pub sync and kv put: each operation goes out at its time with up to `bound` awaiting
/// answers, which are recorded as they come, on this task (the recorder's one writer), from
/// their intended and actual send times.
///
/// `start(i, payload)` sends message i (0-based) with its stamped payload and gives what
/// awaits its answer; a send that fails is counted with the errors and ends the client.
/// `answer` says what an answer means. Both are generic: no box per operation beyond
/// FuturesUnordered's own node.
pub(crate) async fn open_loop<S, F, A, D>(
    mut ctx: Ctx,
    mut rec: Recorder,
    mut sched: Schedule,
    id: u32,
    bound: usize,
    mut start: S,
    mut answer: D,
) -> Outcome
where
    S: FnMut(u64, bytes::Bytes) -> F,
    F: std::future::Future<Output = Result<A, String>>,
    A: std::future::IntoFuture,
    D: FnMut(A::Output) -> Answer,
{
    rec.answers = true;
    rec.events.max_inflight = bound as i64;
    sched.evented();
    let (size, clock) = (ctx.bench.size, ctx.clock);
    let mut payloads = stamp::Payloads::new(size);
    let mut inflight = futures::stream::FuturesUnordered::new();
    let mut done = |rec: &mut Recorder, (out, intended, sent)| {
        let now = clock.now();
        record(rec, answer(out), now, size, intended, sent)
    };
    loop {
        if inflight.len() >= bound {
            rec.events.inflight_full += 1;
            if let Some(d) = inflight.next().await {
                if let Err(msg) = done(&mut rec, d) {
                    return Err((rec, msg));
                }
            }
            continue;
        }
        // The next send's turn, taking the answers that come meanwhile (an answer drops the
        // wait, which the next turn takes up again for the same slot).
        let next = tokio::select! {
            biased;
            Some(d) = inflight.next(), if !inflight.is_empty() => {
                if let Err(msg) = done(&mut rec, d) {
                    return Err((rec, msg));
                }
                continue;
            }
            next = sched.next(&mut ctx.stop, &ctx.stopped, &mut rec) => next,
        };
        let Some((i, intended, sent)) = next else {
            break;
        };
        if size >= stamp::SIZE {
            stamp::put(payloads.buf(), id, i + 1, intended);
        }
        match start(i, payloads.take()).await {
            // Polled at once by the next turn's select (biased to the answers).
            Ok(a) => inflight.push(async move { (a.await, intended, sent) }),
            Err(msg) => {
                rec.events.errors += 1;
                return Err((rec, msg));
            }
        }
    }
    while let Some(d) = inflight.next().await {
        if let Err(msg) = done(&mut rec, d) {
            return Err((rec, msg));
        }
    }
    sched.paced_span(&mut rec);
    Ok(rec)
}

async fn receive(
    mut ctx: Ctx,
    mut sub: async_nats::Subscriber,
    respond: bool,
    epoch: i64,
) -> Outcome {
    let mut rec = Recorder::new(!respond, ctx.bench.interval, epoch)
        .with_warmup(warmup_end(&ctx.bench, epoch))
        .with_probe(&ctx.probe, if respond { "serve" } else { "sub" }, ctx.index);
    let b = &ctx.bench;
    let share = match respond {
        true => share(b.msgs(), b.clients, ctx.index) as i64,
        false => b.msgs() as i64,
    };
    let far = Duration::from_secs(86_400 * 365);
    // One timer for --duration, set once: not a clock read and a new timer per message.
    let deadline = tokio::time::sleep(if b.duration.is_zero() {
        far
    } else {
        b.duration
    });
    tokio::pin!(deadline);
    // Responders wait for requests as long as they run; receivers stop after --idle-timeout.
    // One timer, moved only when it fires early: a timeout per message cost a clock read and a
    // timer each, and a fresh `changed()` per message registered with the watch's waiters.
    let idle = if respond { far } else { b.idle_timeout };
    let idle_ns = idle.as_nanos().min(i64::MAX as u128) as i64;
    let quiet = tokio::time::sleep(idle);
    tokio::pin!(quiet);
    let mut last = ctx.clock.now();
    let until = match b.duration.is_zero() {
        true => i64::MAX,
        false => last + b.duration.as_nanos() as i64,
    };
    let stopped = ctx.stop.changed();
    tokio::pin!(stopped);
    loop {
        // The select below tries the subscription first, so a stop or the end of --duration
        // under a flood that never lets it wait is seen here.
        if share > 0 && rec.progress() >= share || ctx.stopped.load(Ordering::Relaxed) {
            break;
        }
        let mut msg = tokio::select! {
            biased;
            m = sub.next() => match m {
                Some(m) => m,
                None => return Err((rec, "subscription closed".into())),
            },
            _ = &mut stopped => break,
            _ = &mut deadline => break,
            _ = &mut quiet => {
                let since = ctx.clock.now() - last;
                if since >= idle_ns {
                    break; // idle
                }
                let left = Duration::from_nanos((idle_ns - since) as u64);
                quiet.as_mut().reset(tokio::time::Instant::now() + left);
                continue;
            }
        };
        let now = ctx.clock.now();
        if now >= until {
            break;
        }
        if respond {
            if let Some(reply) = msg.reply.take() {
                if ctx
                    .client
                    .publish(reply, msg.payload.clone())
                    .await
                    .is_err()
                {
                    rec.events.errors += 1;
                    continue;
                }
            }
        }
        last = now;
        rec.received(now, &msg.payload);
    }
    rec.events.slow_consumers = ctx.slow.load(Ordering::Relaxed);
    // A responder's last replies may still be in the client's buffer: out before the process
    // ends, or the requester waits out its timeout for them.
    if respond {
        if let Err(e) = ctx.client.flush().await {
            return Err((rec, format!("flush: {e}")));
        }
    }
    let _ = sub.unsubscribe().await;
    Ok(rec)
}

#[cfg(test)]
mod tests {
    #[test]
    fn shares_add_up() {
        for (total, clients) in [(10u64, 3usize), (7, 7), (1, 4), (100_000, 6)] {
            let sum: u64 = (0..clients).map(|i| super::share(total, clients, i)).sum();
            assert_eq!(sum, total);
        }
    }
}

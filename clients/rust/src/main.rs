//! natsperf-rust: natsperf's core workloads measured through the async-nats client, with the
//! same stamp bytes, fixed-rate schedule and loss accounting as natsperf's Go engine, writing a
//! natsperf Result document (natsperf.result/v2). See clients/rust/README.md.

mod agent;
mod conn;
mod gate;
mod js;
mod latency;
mod live;
mod pace;
mod record;
mod result;
mod stamp;
mod workload;

use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;
use std::time::Duration;

/// The async-nats release this crate is built against (checked against Cargo.lock by a test).
pub const ASYNC_NATS_VERSION: &str = "0.42.0";

#[derive(Parser)]
#[command(
    name = "natsperf-rust",
    version,
    about = "natsperf's core workloads through the async-nats client; prints a natsperf Result (JSON)"
)]
struct Cli {
    /// NATS server URL
    #[arg(
        short = 's',
        long = "server",
        global = true,
        default_value = "nats://127.0.0.1:4222"
    )]
    server: String,
    /// Write the Result to FILE instead of stdout
    #[arg(short = 'o', long = "output", global = true, value_name = "FILE")]
    output: Option<String>,
    #[command(flatten)]
    conn: conn::ConnArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Publish stamped messages to SUBJECT
    Pub(Bench),
    /// Receive messages on SUBJECT, counting latency, losses, duplicates and reordering
    Sub(Bench),
    /// Service responders and requesters
    #[command(subcommand)]
    Service(Service),
    /// End-to-end latency at a fixed rate, publishing on server A (-s) and receiving on server B
    /// (--server-b): natsperf latency's (latency-tests') report; the Result goes to -o FILE
    Latency(latency::LatencyArgs),
    /// JetStream workloads
    #[command(subcommand)]
    Js(Js),
    /// Run as a natsperf agent (docs/agent-protocol.md): a coordinator (`natsperf CMD --client
    /// rust`, or `--agents client=rust`) hands it parts of runs until Ctrl-C
    Agent(agent::AgentArgs),
}

#[derive(Subcommand)]
enum Js {
    /// JetStream publishers
    #[command(subcommand)]
    Pub(JsPub),
}

#[derive(Subcommand)]
enum JsPub {
    /// Publish windows of --batch messages asynchronously, then wait for their acks
    Async(js::JsPubArgs),
    /// Publish one message at a time, each waiting for its ack
    Sync(js::JsPubArgs),
}

#[derive(Subcommand)]
enum Service {
    /// Answer requests on SUBJECT (queue group natsperf-service) until --msgs, --duration or Ctrl-C
    Serve(Bench),
    /// Send requests to SUBJECT and measure the round trip
    Request(Bench),
}

#[derive(Args, Clone)]
pub struct Bench {
    /// Subject to use
    pub subject: String,
    /// Number of clients (connections)
    #[arg(long, default_value_t = 1)]
    pub clients: usize,
    /// Messages in total, split across the clients (each subscriber expects all of them); 0: no
    /// count limit (needs --duration for pub and request). Default 100000; service serve: none
    #[arg(long)]
    pub msgs: Option<u64>,
    /// Payload size in bytes (16 or more carries a stamp, 24 or more an extended one at a fixed rate)
    #[arg(long, default_value_t = 128)]
    pub size: usize,
    /// Fixed rate in messages per second across all clients (0: as fast as possible)
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Time limit, e.g. 10s, 500ms, 2m (0: none)
    #[arg(long, default_value = "0", value_parser = parse_duration)]
    pub duration: Duration,
    /// Receivers stop after this long without a message
    #[arg(long = "idle-timeout", default_value = "5s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Request timeout (service request)
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Messages a subscription buffers before async-nats drops them (counted as slow_consumers
    /// events; the drops show as lost)
    #[arg(long = "pending-msgs", default_value_t = 1 << 20)]
    pub pending_msgs: usize,
    /// Base of the publisher ids written into stamps (client i gets base+i+1); random when unset
    #[arg(long = "pub-id-base")]
    pub pub_id_base: Option<u32>,
    /// Width of one slice of the Result's per-interval series
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Leave this initial period out of the statistics (sequence accounting still sees it)
    #[arg(long, default_value = "0", value_parser = parse_duration)]
    pub warmup: Duration,
    /// Publish to SUBJECT.N (N = message number modulo --multisubject-max); receivers
    /// subscribe to SUBJECT.> (pub, sub, js pub)
    #[arg(long)]
    pub multisubject: bool,
    /// How many different subjects --multisubject uses
    #[arg(long = "multisubject-max", default_value_t = 100_000)]
    pub multisubject_max: u64,
}

impl Bench {
    /// --msgs as given, or the command's default (set by main before the run).
    pub fn msgs(&self) -> u64 {
        self.msgs.unwrap_or(100_000)
    }
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let split = s
        .find(|c: char| c.is_ascii_alphabetic())
        .ok_or_else(|| format!("duration {s:?} needs a unit (ms, s, m, h)"))?;
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().map_err(|_| format!("bad duration {s:?}"))?;
    let secs = match unit {
        "ns" => n / 1e9,
        "us" | "µs" => n / 1e6,
        "ms" => n / 1e3,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("bad duration unit in {s:?} (ns, us, ms, s, m, h)")),
    };
    if !(secs >= 0.0 && secs.is_finite()) {
        return Err(format!("bad duration {s:?}"));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("natsperf-rust: {msg}");
    ExitCode::from(2)
}

fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("natsperf-rust: start the runtime: {e}");
            ExitCode::from(1)
        })
}

/// Writes the Result to -o FILE, or to stdout when `stdout` is set.
fn write_result(
    doc: &result::ResultDoc,
    output: &Option<String>,
    stdout: bool,
) -> Result<(), String> {
    let json = serde_json::to_string_pretty(doc).expect("a Result always serialises");
    if let Some(path) = output {
        std::fs::write(path, json.clone() + "\n").map_err(|e| format!("write {path}: {e}"))?;
    }
    if stdout {
        println!("{json}");
    }
    Ok(())
}

fn exit_code(reason: &str) -> ExitCode {
    match reason {
        "completed" => ExitCode::SUCCESS,
        "interrupted" => ExitCode::from(130),
        _ => ExitCode::from(1),
    }
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    // natsperf hands a child agent its password or token in the environment, never in argv.
    for (var, slot) in [
        ("NATSPERF_RUST_PASSWORD", &mut cli.conn.password),
        ("NATSPERF_RUST_TOKEN", &mut cli.conn.token),
    ] {
        if slot.is_none() {
            *slot = std::env::var(var).ok().filter(|v| !v.is_empty());
        }
    }
    if let Err(e) = cli.conn.validate() {
        return usage_error(&e);
    }
    let (kind, bench) = match &cli.command {
        Command::Pub(b) => (workload::Kind::Pub, b.clone()),
        Command::Sub(b) => (workload::Kind::Sub, b.clone()),
        Command::Service(Service::Serve(b)) => (workload::Kind::Serve, b.clone()),
        Command::Service(Service::Request(b)) => (workload::Kind::Request, b.clone()),
        Command::Latency(args) => return run_latency(&cli, args.clone()),
        Command::Agent(args) => return run_agent(&cli, args.clone()),
        Command::Js(Js::Pub(JsPub::Async(args) | JsPub::Sync(args))) => {
            if let Err(e) = js_args(&cli.command, args).validate() {
                return usage_error(&e);
            }
            (workload::Kind::JsPubAsync, args.bench.clone())
        }
    };
    let mut bench = bench;
    if kind == workload::Kind::Serve && bench.msgs.is_none() {
        bench.msgs = Some(0); // a responder serves until Ctrl-C or --duration, as natsperf's
    }
    if bench.clients == 0 {
        return usage_error("--clients must be at least 1");
    }
    if bench.rate < 0.0 || !bench.rate.is_finite() {
        return usage_error("--rate must be 0 or more");
    }
    if bench.msgs() == 0
        && bench.duration.is_zero()
        && matches!(
            kind,
            workload::Kind::Pub | workload::Kind::Request | workload::Kind::JsPubAsync
        )
    {
        return usage_error("--msgs 0 needs a --duration");
    }
    if bench.pending_msgs == 0 {
        return usage_error("--pending-msgs must be at least 1");
    }
    if bench.multisubject && matches!(kind, workload::Kind::Serve | workload::Kind::Request) {
        return usage_error("--multisubject is for pub, sub and js pub");
    }
    if bench.multisubject_max == 0 {
        return usage_error("--multisubject-max must be at least 1");
    }
    if bench.interval.is_zero() {
        return usage_error("--interval must be positive");
    }
    if !bench.duration.is_zero() && bench.warmup >= bench.duration {
        return usage_error("--warmup must be shorter than --duration");
    }
    if let Some(base) = bench.pub_id_base {
        if base > stamp::MAX_PUBLISHER {
            return usage_error(&format!(
                "--pub-id-base must be at most {}",
                stamp::MAX_PUBLISHER
            ));
        }
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let outcome = match &cli.command {
        Command::Js(Js::Pub(JsPub::Async(args) | JsPub::Sync(args))) => {
            let mut args = js_args(&cli.command, args);
            args.bench = bench;
            rt.block_on(js::run(&cli.server, &cli.conn, args, None))
        }
        _ => rt.block_on(workload::run(kind, &cli.server, &cli.conn, bench, None)),
    };
    let doc = match outcome {
        Ok(doc) => doc,
        Err(e) => {
            eprintln!("natsperf-rust: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = write_result(&doc, &cli.output, cli.output.is_none()) {
        eprintln!("natsperf-rust: {e}");
        return ExitCode::from(1);
    }
    exit_code(doc.stop.reason)
}

/// The JetStream publisher's arguments, marked sync for `js pub sync`.
fn js_args(command: &Command, args: &js::JsPubArgs) -> js::JsPubArgs {
    let mut args = args.clone();
    args.sync = matches!(command, Command::Js(Js::Pub(JsPub::Sync(_))));
    args
}

/// `agent` serves runs until Ctrl-C or SIGTERM.
fn run_agent(cli: &Cli, args: agent::AgentArgs) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(agent::serve(args, cli.server.clone(), cli.conn.clone())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("natsperf-rust: {e}");
            ExitCode::from(1)
        }
    }
}

/// `latency` prints latency-tests' text report (or, with --json, the Result) on stdout.
fn run_latency(cli: &Cli, args: latency::LatencyArgs) -> ExitCode {
    if let Err(e) = args.validate() {
        return usage_error(&e);
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let json = args.json;
    let out = match rt.block_on(latency::run(&cli.server, &cli.conn, args, None)) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("natsperf-rust: {e}");
            return ExitCode::from(1);
        }
    };
    if !json {
        print!("{}", out.text);
    }
    if let Err(e) = write_result(&out.doc, &cli.output, json) {
        eprintln!("natsperf-rust: {e}");
        return ExitCode::from(1);
    }
    exit_code(out.doc.stop.reason)
}

#[cfg(test)]
mod tests {
    #[test]
    fn async_nats_version_matches_lock() {
        let lock =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
        let want = format!(
            "name = \"async-nats\"\nversion = \"{}\"",
            super::ASYNC_NATS_VERSION
        );
        assert!(
            lock.contains(&want),
            "ASYNC_NATS_VERSION is not the locked async-nats version"
        );
    }

    #[test]
    fn durations() {
        use std::time::Duration;
        assert_eq!(
            super::parse_duration("500ms").unwrap(),
            Duration::from_millis(500)
        );
        assert_eq!(
            super::parse_duration("2m").unwrap(),
            Duration::from_secs(120)
        );
        assert_eq!(super::parse_duration("0").unwrap(), Duration::ZERO);
        assert!(super::parse_duration("10").is_err());
        assert!(super::parse_duration("-1s").is_err());
    }
}

//! natsperf-rust: natsperf's core workloads measured through the async-nats client, with the
//! same stamp bytes, fixed-rate schedule and loss accounting as natsperf's Go engine, writing a
//! natsperf Result document (natsperf.result/v2). See clients/rust/README.md.

mod agent;
mod clock;
mod conn;
mod cpu;
mod gate;
mod hist;
mod js;
mod kv;
mod latency;
mod live;
mod pace;
mod parts;
mod record;
mod result;
mod settings;
mod spec;
mod stamp;
mod workload;

use clap::{Parser, Subcommand};
use settings::Settings;
use std::process::ExitCode;

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
    Pub(Settings),
    /// Receive messages on SUBJECT, counting latency, losses, duplicates and reordering
    Sub(Settings),
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
    Serve(Settings),
    /// Send requests to SUBJECT and measure the round trip
    Request(Settings),
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
            crate::conn::ASYNC_NATS_VERSION
        );
        assert!(
            lock.contains(&want),
            "ASYNC_NATS_VERSION is not the locked async-nats version"
        );
    }
}

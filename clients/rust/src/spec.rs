//! The Spec (natsperf.spec/v1, Go's `spec` package) as typed structs, read as Go reads it:
//! every key Go knows has a field here, and an unknown key is refused with its path
//! (`workloads[0].config: unknown field "sizee"`), as Go's spec does. The kinds natsperf-rust
//! runs get their typed config; another kind's config is left undecoded (`Config::Other`) and
//! the run refused when planned (agent.rs). Checked against Go's golden Spec files,
//! spec/testdata/kinds.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::sync::OnceLock;
use std::time::Duration;

pub const VERSION: &str = "natsperf.spec/v1";

/// The workload kinds natsperf-rust runs, one list for both languages: Go's runner.RustKinds
/// embeds the same file.
const KINDS_FILE: &str = include_str!("../../../runner/rust-kinds.json");

/// The kinds natsperf-rust runs, in the file's order.
pub fn kinds() -> &'static [String] {
    static KINDS: OnceLock<Vec<String>> = OnceLock::new();
    KINDS.get_or_init(|| serde_json::from_str(KINDS_FILE).expect("runner/rust-kinds.json"))
}

/// The kinds as a refusal names them: "pub, sub and latency" (Go's kindList).
pub fn kind_list() -> String {
    match kinds() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    #[serde(default)]
    pub version: String,
    /// Labels the run (a scenario cell): the coordinator's, not read here.
    #[serde(default)]
    #[allow(dead_code)]
    pub name: String,
    #[serde(default)]
    pub target: Target,
    #[serde(default)]
    pub setup: Setup,
    /// Decoded one by one (`parse`), so an error names its workload.
    #[serde(rename = "workloads", default)]
    raw_workloads: Vec<Box<RawValue>>,
    #[serde(skip)]
    pub workloads: Vec<Workload>,
    #[serde(default)]
    pub warmup: GoDuration,
    #[serde(default)]
    pub interval: GoDuration,
    /// The pacing precision of the run's fixed-rate senders (0: natsperf-rust's default,
    /// `pace::MIN_GAP`); checked by `parse` against Go's range.
    #[serde(default)]
    pub pace_precision: GoDuration,
    /// Refused when set: natsperf-rust always records latency.
    #[serde(default)]
    pub no_latency: bool,
    /// Refused when any is set: natsperf-rust injects no faults.
    #[serde(default)]
    pub faults: Faults,
    /// Refused when set: natsperf-rust does not read streams back.
    #[serde(default)]
    pub verify: bool,
    /// Ignored: the thresholds are judged on the merged Result, by natsperf.
    #[serde(default)]
    #[allow(dead_code)]
    pub slo: Vec<String>,
    /// Ignored: telemetry is sampled by whoever holds the target, never by an agent.
    #[serde(default)]
    #[allow(dead_code)]
    pub no_server_metrics: bool,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Target {
    pub servers: Vec<String>,
    /// Refused when set: natsperf-rust reads no nats contexts.
    pub context: String,
    pub creds: String,
    pub nkey: String,
    pub user: String,
    /// A Spec never holds a secret: any value is refused (the prepare carries them).
    #[serde(deserialize_with = "no_secret")]
    pub password: String,
    #[serde(deserialize_with = "no_secret")]
    pub token: String,
    pub tls_cert: String,
    pub tls_key: String,
    pub tls_ca: String,
    pub tls_first: bool,
    /// Refused when set (Target::unsupported): async-nats always verifies the server's
    /// certificate.
    pub tls_insecure: bool,
    pub connect_timeout: GoDuration,
    /// Refused: an embedded server is private to one process.
    pub embedded: Option<Embedded>,
    /// Refused when set (Target::unsupported): connection options natsperf-rust does not take.
    pub jwt: String,
    pub seed: String,
    pub connection_name: String,
    pub socks_proxy: String,
    pub js_domain: String,
    pub js_api_prefix: String,
    pub js_event_prefix: String,
    pub inbox_prefix: String,
    pub timeout: GoDuration,
    pub trace: bool,
    /// Ignored: contexts are refused anyway (context above).
    #[allow(dead_code)]
    pub no_context: bool,
    /// Ignored: telemetry is sampled by whoever holds the target, never by an agent.
    #[allow(dead_code)]
    pub monitor: Vec<String>,
    /// Ignored, as monitor: the system account telemetry reads through.
    #[allow(dead_code)]
    pub sys_creds: String,
    #[allow(dead_code)]
    pub sys_user: String,
    /// A Spec never holds a secret: any value is refused (as password).
    #[serde(deserialize_with = "no_secret")]
    #[allow(dead_code)]
    pub sys_password: String,
}

impl Target {
    /// The first connection option set that natsperf-rust does not take, by its flag name
    /// (runner refuses the same ones for --client rust before a Spec reaches an agent).
    pub fn unsupported(&self) -> Option<&'static str> {
        [
            (
                !self.jwt.is_empty() || !self.seed.is_empty(),
                "--jwt/--seed",
            ),
            (!self.connection_name.is_empty(), "--connection-name"),
            (!self.socks_proxy.is_empty(), "--socks-proxy"),
            (!self.js_domain.is_empty(), "--js-domain"),
            (!self.js_api_prefix.is_empty(), "--js-api-prefix"),
            (!self.js_event_prefix.is_empty(), "--js-event-prefix"),
            (!self.inbox_prefix.is_empty(), "--inbox-prefix"),
            (!self.timeout.0.is_zero(), "--timeout"),
            (self.trace, "--trace"),
            (self.tls_insecure, "--tls-insecure"),
        ]
        .into_iter()
        .find_map(|(set, flag)| set.then_some(flag))
    }
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Embedded {
    pub nodes: i64,
    pub encryption: String,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Setup {
    pub streams: Vec<Stream>,
    /// The buckets of the kv kinds: the bucket a kv workload names is made as its entry asks
    /// (kv.rs); an entry no kv workload names is not read.
    pub buckets: Vec<Bucket>,
}

/// A setup stream. natsperf-rust's JetStream publishers create their stream when the Spec
/// has setup streams; the other settings are made by the coordinator (runner's setup).
#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Stream {
    pub name: String,
    pub subjects: Vec<String>,
    pub storage: String,
    pub replicas: i64,
    pub max_bytes: Option<Size>,
    pub dedup_window: Option<GoDuration>,
    pub persist_async: bool,
    /// Ignored: the coordinator makes the Spec's streams (runner's setup).
    pub compression: String,
    pub create: bool,
    pub recreate: bool,
    pub purge: bool,
    pub force: bool,
    pub delete_after: bool,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Bucket {
    pub name: String,
    pub storage: String,
    pub replicas: i64,
    pub history: i64,
    pub max_bytes: Option<Size>,
    pub compression: String,
    pub purge: bool,
    pub force: bool,
    pub create: bool,
    pub delete_after: bool,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Faults {
    pub inject: Vec<String>,
    pub exec: Vec<String>,
    pub exec_timeout: GoDuration,
}

impl Faults {
    pub fn is_empty(&self) -> bool {
        self.inject.is_empty() && self.exec.is_empty() && self.exec_timeout.0.is_zero()
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub instances: i64,
    #[serde(default)]
    pub clients: i64,
    #[serde(default)]
    pub pacing: Pacing,
    /// Decoded into the kind's type (`parse`), so the error names `config`.
    #[serde(rename = "config", default)]
    raw_config: Option<Box<RawValue>>,
    #[serde(skip)]
    pub config: Config,
    /// go or rust: the coordinator chose this agent by it; an agent runs what it is handed.
    #[serde(default)]
    #[allow(dead_code)]
    pub client: String,
    /// What follows the stamp: natsperf-rust's is Go's text filler, so "" and "text" run and
    /// "zeros" is refused (agent.rs).
    #[serde(default)]
    pub payload_fill: String,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Pacing {
    pub msgs: i64,
    pub rate: f64,
    pub duration: GoDuration,
    /// Refused when set: natsperf-rust does not run --sleep.
    pub sleep: GoDuration,
    /// rate_to (a ramp), steps and poisson arrivals are refused: natsperf-rust paces at a
    /// constant rate.
    pub rate_to: f64,
    pub ramp: GoDuration,
    pub steps: Vec<f64>,
    pub step_duration: GoDuration,
    pub arrivals: String,
    pub seed: u64,
    /// The open model's bound on requests awaiting replies across the clients (service
    /// request at a fixed rate; natsperf fills in its default); 0: one at a time.
    pub max_inflight: i64,
}

/// A workload's config, typed by its kind.
#[derive(Debug, Default, PartialEq)]
pub enum Config {
    Pub(Pub),
    Sub(Sub),
    ServiceServe(ServiceServe),
    ServiceRequest(ServiceRequest),
    Latency(Latency),
    JsPubSync(JsPublish),
    JsPubAsync(JsPublish),
    KvPut(Kv),
    KvGet(Kv),
    /// A kind natsperf-rust does not run: refused when planned, its config not read.
    #[default]
    Other,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Pub {
    pub subject: String,
    pub size: Option<Size>,
    pub multisubject: bool,
    pub multisubject_max: i64,
    /// Refused when set, as payload.
    pub multisubject_randomize: bool,
    /// Refused when set (Payload::unsupported).
    pub payload: Payload,
}

/// A publisher's message body and headers (Go's spec.Payload): natsperf-rust sends --size
/// bytes with the stamp in the payload, so any of these is refused.
#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Payload {
    pub file: String,
    pub random: bool,
    pub headers: Vec<String>,
    pub stamp: String,
}

impl Payload {
    /// The first payload flag set that natsperf-rust does not take.
    pub fn unsupported(&self) -> Option<&'static str> {
        [
            (!self.file.is_empty(), "--payload"),
            (self.random, "--payload-random"),
            (!self.headers.is_empty(), "--header"),
            (self.stamp == "header", "--stamp header"),
        ]
        .into_iter()
        .find_map(|(set, flag)| set.then_some(flag))
    }
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Sub {
    pub subject: String,
    /// Labels the run only, as Go's.
    pub size: Option<Size>,
    /// Refused when set: natsperf-rust's subscribers join no queue group.
    pub queue: String,
    pub multisubject: bool,
    pub idle_timeout: GoDuration,
    pub pending_msgs: i64,
    /// Refused when positive: async-nats bounds a subscription's buffer by messages only
    /// (pending_msgs); 0 and -1 (unlimited) are what it does.
    pub pending_bytes: Option<Size>,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ServiceServe {
    pub subject: String,
    pub size: Option<Size>,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ServiceRequest {
    pub subject: String,
    pub size: Option<Size>,
    pub timeout: GoDuration,
    /// Refused when set (Payload::unsupported).
    pub payload: Payload,
}

#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Latency {
    pub subject: String,
    pub size: Option<Size>,
    pub server_b: String,
}

/// js pub sync's and js pub async's config (Go's JSPublish; batch is async's only).
#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct JsPublish {
    pub stream: String,
    pub subject: String,
    pub size: Option<Size>,
    pub multisubject: bool,
    pub multisubject_max: i64,
    pub dedup: bool,
    pub ack_timeout: GoDuration,
    pub batch: Option<i64>,
    /// Refused when set, as payload.
    pub multisubject_randomize: bool,
    /// Refused when set (Payload::unsupported).
    pub payload: Payload,
}

/// kv put's and kv get's config (Go's spec.KV); the bucket's settings are the setup's.
#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Kv {
    pub bucket: String,
    pub size: Option<Size>,
    pub randomize: i64,
    pub ack_timeout: GoDuration,
}

/// A Go duration string ("1.5s", "2m0s", "500ms"); a number is refused, as Go's spec.Duration.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GoDuration(pub Duration);

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = GoDuration;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a duration written as a string such as \"2s\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<GoDuration, E> {
                go_duration(s).map(GoDuration).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

/// Reads a Go duration string ("1.5s", "2m0s", "500ms").
pub fn go_duration(s: &str) -> Result<Duration, String> {
    if s == "0" || s == "0s" {
        return Ok(Duration::ZERO);
    }
    let mut total = 0.0f64;
    let mut rest = s;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("{s:?} is not a duration"))?;
        let n: f64 = rest[..num_end]
            .parse()
            .map_err(|_| format!("{s:?} is not a duration"))?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(format!("{s:?} is not a duration")),
        };
        total += n * scale;
        rest = &rest[unit_end..];
    }
    Ok(Duration::from_secs_f64(total))
}

/// A byte count. Go writes it as a number (a Spec file's "16kb" is a number by the time a
/// coordinator sends it); natsperf-rust takes whole numbers only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size(pub i64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a whole number of bytes (natsperf-rust takes no size strings)")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Size, E> {
                Ok(Size(n))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Size, E> {
                i64::try_from(n)
                    .map(Size)
                    .map_err(|_| E::custom(format!("size {n} is too large")))
            }
        }
        d.deserialize_any(V)
    }
}

fn no_secret<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if !s.is_empty() {
        return Err(de::Error::custom(
            "a password or token in a spec is refused: a spec never holds secrets",
        ));
    }
    Ok(s)
}

/// Reads a Spec in JSON (what a coordinator sends; Go's spec.ParseJSON), refusing unknown
/// keys with their path, another version, and a config that is not its kind's.
pub fn parse(json: &str) -> Result<Spec, String> {
    let mut s: Spec = decode(json, "")?;
    if s.version != VERSION {
        return Err(match s.version.as_str() {
            "" => format!("version: missing (want {VERSION:?})"),
            v => format!("version: {v:?} is not supported (want {VERSION:?})"),
        });
    }
    for (i, raw) in std::mem::take(&mut s.raw_workloads).iter().enumerate() {
        let at = format!("workloads[{i}]");
        let mut w: Workload = decode(raw.get(), &at)?;
        if let Some(cfg) = w.raw_config.take() {
            w.config = config(&w.kind, cfg.get(), &format!("{at}.config"))?;
        } else {
            w.config = config(&w.kind, "{}", &format!("{at}.config"))?;
        }
        s.workloads.push(w);
    }
    let p = s.pace_precision.0;
    if !p.is_zero() && (p < crate::pace::MIN_PRECISION || p > crate::pace::MAX_PRECISION) {
        return Err(format!(
            "pace_precision: {p:?}: the precision must be {:?} to {:?}",
            crate::pace::MIN_PRECISION,
            crate::pace::MAX_PRECISION
        ));
    }
    Ok(s)
}

/// The config of a kind natsperf-rust runs, typed; another kind's is not read.
fn config(kind: &str, json: &str, at: &str) -> Result<Config, String> {
    let json = if json.trim() == "null" { "{}" } else { json };
    Ok(match kind {
        "pub" => Config::Pub(decode(json, at)?),
        "sub" => Config::Sub(decode(json, at)?),
        "service serve" => Config::ServiceServe(decode(json, at)?),
        "service request" => Config::ServiceRequest(decode(json, at)?),
        "latency" => Config::Latency(decode(json, at)?),
        "js pub sync" => {
            let c: JsPublish = decode(json, at)?;
            if c.batch.is_some() {
                return Err(format!("{at}: unknown field \"batch\""));
            }
            Config::JsPubSync(c)
        }
        "js pub async" => Config::JsPubAsync(decode(json, at)?),
        "kv put" => Config::KvPut(decode(json, at)?),
        "kv get" => Config::KvGet(decode(json, at)?),
        _ => Config::Other,
    })
}

/// Decodes one JSON value, an error prefixed with where it is (`at` plus the path inside)
/// and worded as Go's spec words it.
fn decode<T: DeserializeOwned>(json: &str, at: &str) -> Result<T, String> {
    let de = &mut serde_json::Deserializer::from_str(json);
    let v = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let inner = e.inner().to_string();
        let mut path = e.path().to_string();
        // An unknown key's path ends at the key itself; Go names the object holding it.
        let unknown = inner
            .strip_prefix("unknown field `")
            .and_then(|r| r.split_once('`'));
        if let Some((key, _)) = unknown {
            if let Some(cut) = path.strip_suffix(key) {
                path = cut.trim_end_matches('.').to_string();
            }
        }
        let msg = match unknown {
            Some((key, _)) => format!("unknown field {key:?}"),
            None => inner
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_string(),
        };
        let path = if path == "." { String::new() } else { path };
        let full = match (at.is_empty(), path.is_empty()) {
            (true, true) => String::new(),
            (true, false) => path,
            (false, true) => at.to_string(),
            (false, false) if path.starts_with('[') => format!("{at}{path}"),
            (false, false) => format!("{at}.{path}"),
        };
        if full.is_empty() {
            msg
        } else {
            format!("{full}: {msg}")
        }
    })?;
    de.end()
        .map_err(|_| "unexpected data after the spec".to_string())?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(name: &str) -> Spec {
        let path = format!(
            "{}/../../spec/testdata/kinds/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        parse(&json).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn secs(s: f64) -> GoDuration {
        GoDuration(Duration::from_secs_f64(s))
    }

    /// Go's golden Spec files (spec/testdata/kinds, written by TestEveryKindGolden) decode
    /// to the values Go's everyKind sets, field by field: both languages read the same files.
    #[test]
    fn golden_specs_decode_as_go_wrote_them() {
        let sender = Pacing {
            msgs: 100_000,
            rate: 2500.5,
            duration: secs(10.0),
            sleep: secs(0.001),
            ..Default::default()
        };
        let stream = Stream {
            name: "orders".into(),
            subjects: vec!["orders.new".into(), "orders.new.>".into()],
            storage: "memory".into(),
            replicas: 3,
            max_bytes: Some(Size(1 << 30)),
            dedup_window: Some(secs(120.0)),
            create: true,
            purge: true,
            force: true,
            ..Default::default()
        };
        let js = JsPublish {
            stream: "orders".into(),
            subject: "orders.new".into(),
            size: Some(Size(512)),
            multisubject: true,
            multisubject_max: 10,
            dedup: true,
            ack_timeout: secs(2.0),
            batch: None,
            multisubject_randomize: true,
            payload: Payload {
                random: true,
                headers: vec!["X-App:bench".into()],
                stamp: "header".into(),
                ..Default::default()
            },
        };
        let kv = Kv {
            bucket: "cache".into(),
            size: Some(Size(256)),
            randomize: 1000,
            ack_timeout: secs(3.0),
        };
        let bucket = Bucket {
            name: "cache".into(),
            storage: "file".into(),
            replicas: 3,
            history: 5,
            max_bytes: Some(Size(1 << 20)),
            purge: true,
            force: true,
            ..Default::default()
        };
        let cases: Vec<(&str, i64, Pacing, Config)> = vec![
            (
                "pub",
                4,
                sender.clone(),
                Config::Pub(Pub {
                    subject: "foo".into(),
                    size: Some(Size(16384)),
                    multisubject: true,
                    multisubject_max: 100,
                    multisubject_randomize: false,
                    payload: Payload {
                        file: "order.json".into(),
                        headers: vec!["X-App:bench".into(), "X-Tenant:a".into()],
                        stamp: "header".into(),
                        ..Default::default()
                    },
                }),
            ),
            (
                "sub",
                2,
                Pacing {
                    msgs: 50_000,
                    sleep: GoDuration(Duration::from_micros(1)),
                    ..Default::default()
                },
                Config::Sub(Sub {
                    subject: "foo".into(),
                    size: None,
                    queue: "workers".into(),
                    multisubject: true,
                    idle_timeout: secs(5.0),
                    pending_msgs: 65536,
                    pending_bytes: Some(Size(64 << 20)),
                }),
            ),
            (
                "service-serve",
                2,
                Pacing {
                    msgs: 1000,
                    sleep: secs(0.001),
                    ..Default::default()
                },
                Config::ServiceServe(ServiceServe {
                    subject: "svc".into(),
                    size: None,
                }),
            ),
            (
                "service-request",
                50,
                sender.clone(),
                Config::ServiceRequest(ServiceRequest {
                    subject: "svc".into(),
                    size: Some(Size(64)),
                    timeout: secs(2.0),
                    payload: Payload::default(),
                }),
            ),
            (
                "latency",
                0,
                Pacing {
                    rate: 1000.0,
                    duration: secs(5.0),
                    ..Default::default()
                },
                Config::Latency(Latency {
                    subject: "lat".into(),
                    size: Some(Size(512)),
                    server_b: "nats://127.0.0.1:4223".into(),
                }),
            ),
            (
                "js-pub-sync",
                0,
                sender.clone(),
                Config::JsPubSync(js.clone()),
            ),
            (
                "js-pub-async",
                2,
                sender.clone(),
                Config::JsPubAsync(JsPublish {
                    batch: Some(250),
                    ..js
                }),
            ),
            (
                "kv-put",
                4,
                Pacing {
                    msgs: 10_000,
                    rate: 500.0,
                    ..sender.clone()
                },
                Config::KvPut(kv.clone()),
            ),
            (
                "kv-get",
                16,
                Pacing {
                    msgs: 10_000,
                    ..Default::default()
                },
                Config::KvGet(kv),
            ),
        ];
        assert_eq!(cases.len(), kinds().len(), "a golden case per kind");
        for (file, clients, pacing, config) in cases {
            let s = golden(file);
            assert_eq!(s.version, VERSION);
            assert_eq!(s.name, file.replace('-', " "), "{file}");
            assert_eq!((s.warmup, s.interval), (secs(1.0), secs(0.5)), "{file}");
            assert_eq!(s.workloads.len(), 1, "{file}");
            let w = &s.workloads[0];
            assert_eq!(w.kind, s.name, "{file}");
            assert!(kinds().contains(&w.kind), "{file}: {} not listed", w.kind);
            assert_eq!(w.clients, clients, "{file}");
            assert_eq!(w.pacing, pacing, "{file}");
            assert_eq!(w.config, config, "{file}");
            let streams = matches!(w.config, Config::JsPubSync(_) | Config::JsPubAsync(_));
            let want: Vec<Stream> = streams.then(|| stream.clone()).into_iter().collect();
            assert_eq!(s.setup.streams, want, "{file}");
            let buckets = matches!(w.config, Config::KvPut(_) | Config::KvGet(_));
            let want: Vec<Bucket> = buckets.then(|| bucket.clone()).into_iter().collect();
            assert_eq!(s.setup.buckets, want, "{file}");
        }
        // The run-level and target fields of the pub and sub files.
        let p = golden("pub");
        assert_eq!(
            p.target,
            Target {
                servers: vec![
                    "nats://127.0.0.1:4222".into(),
                    "nats://127.0.0.1:4223".into()
                ],
                creds: "/etc/nats/user.creds".into(),
                user: "bench".into(),
                tls_cert: "c.pem".into(),
                tls_key: "k.pem".into(),
                tls_ca: "ca.pem".into(),
                tls_first: true,
                tls_insecure: true,
                connect_timeout: secs(2.0),
                ..Default::default()
            }
        );
        assert!(!p.no_latency && !p.verify && p.faults.is_empty());
        assert_eq!(p.pace_precision.0, Duration::from_micros(250));
        let s = golden("sub");
        assert_eq!(
            (s.target.context.as_str(), s.target.nkey.as_str()),
            ("prod", "/etc/nats/user.nk")
        );
        assert!(s.no_latency);
    }

    /// The golden files of the kinds natsperf-rust does not run read too (every key known),
    /// their config left as `Other`; the pubsub one holds the faults, verify and embedded
    /// target natsperf-rust refuses when planned.
    #[test]
    fn golden_specs_of_other_kinds_read() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/testdata/kinds");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().and_then(|x| x.to_str()) != Some("json") {
                continue;
            }
            let file = path.file_stem().unwrap().to_str().unwrap().to_string();
            let s = golden(&file);
            let w = &s.workloads[0];
            assert_eq!(
                kinds().contains(&w.kind),
                w.config != Config::Other,
                "{file}: {}",
                w.kind
            );
            n += 1;
        }
        assert!(n >= 17, "{n} golden files");
        let ps = golden("pubsub");
        assert_eq!(
            ps.target.embedded,
            Some(Embedded {
                nodes: 3,
                ..Default::default()
            })
        );
        assert_eq!(ps.faults.inject.len(), 3);
        assert_eq!(ps.faults.exec, ["5s:echo hi"]);
        assert_eq!(ps.faults.exec_timeout, secs(10.0));
        assert!(ps.verify);
        assert_eq!(golden("kv-put").setup.buckets[0].history, 5);
    }

    /// As Go's TestUnknownFieldRefused: an unknown key is refused with its path, in one line.
    #[test]
    fn unknown_keys_refused_with_their_path() {
        for (input, want) in [
            (r#"{"version":"natsperf.spec/v1","workloads":[],"colour":1}"#, r#"unknown field "colour""#),
            (r#"{"version":"natsperf.spec/v1","target":{"servers":["nats://a:4222"],"passwd":"x"},"workloads":[]}"#, r#"target: unknown field "passwd""#),
            (r#"{"version":"natsperf.spec/v1","setup":{"streams":[{"name":"s","replica":3}]},"workloads":[]}"#, r#"setup.streams[0]: unknown field "replica""#),
            (r#"{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","clent":2,"config":{"subject":"foo"}}]}"#, r#"workloads[0]: unknown field "clent""#),
            (r#"{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","config":{"subject":"foo","sizee":16}}]}"#, r#"workloads[0].config: unknown field "sizee""#),
            (r#"{"version":"natsperf.spec/v1","workloads":[{"kind":"sub","config":{}},{"kind":"js pub async","config":{"subject":"foo","window":10}}]}"#, r#"workloads[1].config: unknown field "window""#),
            (r#"{"version":"natsperf.spec/v1","workloads":[{"kind":"js pub sync","config":{"batch":10}}]}"#, r#"workloads[0].config: unknown field "batch""#),
            (r#"{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","pacing":{"msg":5},"config":{"subject":"foo"}}]}"#, r#"workloads[0].pacing: unknown field "msg""#),
            (r#"{"version":"natsperf.spec/v2","workloads":[]}"#, r#"version: "natsperf.spec/v2" is not supported"#),
            (r#"{"workloads":[]}"#, "version: missing"),
            (r#"{"version":"natsperf.spec/v1","target":{"password":"hunter2"},"workloads":[]}"#, "target.password: a password or token in a spec is refused"),
            (r#"{"version":"natsperf.spec/v1","warmup":5,"workloads":[]}"#, "warmup: invalid type: integer `5`, expected a duration written as a string"),
            (r#"{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","config":{"size":"16kb"}}]}"#, "workloads[0].config.size: invalid type: string \"16kb\", expected a whole number of bytes"),
            (r#"{"version":"natsperf.spec/v1","workloads":[]} {}"#, "unexpected data after the spec"),
            (r#"{"version":"natsperf.spec/v1","pace_precision":"10us","workloads":[]}"#, "pace_precision: 10µs: the precision must be 50µs to 100ms"),
            (r#"{"version":"natsperf.spec/v1","pace_precision":"1s","workloads":[]}"#, "pace_precision: 1s: the precision must be 50µs to 100ms"),
        ] {
            let err = parse(input).err().unwrap_or_else(|| panic!("accepted {input}"));
            assert!(err.starts_with(want), "{input}: error {err:?} does not start with {want:?}");
            assert!(!err.contains('\n') && !err.contains("hunter2"), "{err:?}");
        }
    }

    #[test]
    fn go_durations() {
        let d = go_duration;
        assert_eq!(d("2m0s").unwrap(), Duration::from_secs(120));
        assert_eq!(d("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(d("1h2m3.5s").unwrap(), Duration::from_secs_f64(3723.5));
        assert_eq!(d("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(d("300µs").unwrap(), Duration::from_micros(300));
        assert!(d("10").is_err());
    }

    #[test]
    fn kind_list_reads_as_go_writes_it() {
        let (list, k) = (kind_list(), kinds());
        assert!(k.len() > 2);
        let last = k.last().unwrap();
        assert_eq!(list, format!("{} and {last}", k[..k.len() - 1].join(", ")));
    }
}

//! The arguments of the core workloads (pub, sub, service serve, service request), which the
//! command line and the agent's Spec both fill, and the command line's duration flags.

use clap::Args;
use std::time::Duration;

#[derive(Args, Clone)]
pub struct Settings {
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
    /// With --rate (service request, js pub sync): at most this many requests or publishes
    /// awaiting answers across the clients, each sent at its time whether or not earlier ones
    /// were answered (the open model); 0: one at a time
    #[arg(long = "max-inflight", default_value_t = 0)]
    pub max_inflight: u64,
}

impl Settings {
    /// The Result's `settings.bench` every workload echoes (core receivers add
    /// idle_timeout).
    pub fn echo(&self) -> serde_json::Value {
        serde_json::json!({
            "clients": self.clients,
            "msgs": self.msgs(),
            "size": self.size,
            "rate": self.rate,
            "duration": self.duration.as_nanos() as u64,
            "interval": self.interval.as_nanos() as u64,
            "warmup": self.warmup.as_nanos() as u64,
        })
    }

    /// --msgs as given, or the command's default (set by main before the run).
    pub fn msgs(&self) -> u64 {
        self.msgs.unwrap_or(100_000)
    }
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
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

#[cfg(test)]
mod tests {
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

//! Connecting: the server URL and natsperf's connection flags (credentials, TLS), and one
//! bounded connect. Secrets given here never reach messages or the Result: URLs are redacted,
//! and the Result records only which kinds of authentication were used.

use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The async-nats release this crate is built against (checked against Cargo.lock by a test).
pub const ASYNC_NATS_VERSION: &str = "0.42.0";

/// natsperf's connection flags, spelled as its Go commands spell them.
#[derive(Args, Clone, Default, Debug)]
pub struct ConnArgs {
    /// NATS credentials file (JWT and NKey seed)
    #[arg(long, global = true, value_name = "FILE")]
    pub creds: Option<PathBuf>,
    /// User name (with --password)
    #[arg(long, global = true)]
    pub user: Option<String>,
    /// Password (with --user)
    #[arg(long, global = true)]
    pub password: Option<String>,
    /// Authentication token
    #[arg(long, global = true)]
    pub token: Option<String>,
    /// NKey seed file
    #[arg(long, global = true, value_name = "FILE")]
    pub nkey: Option<PathBuf>,
    /// Client certificate (PEM), with --tls-key
    #[arg(long = "tls-cert", global = true, value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,
    /// Client certificate's private key (PEM)
    #[arg(long = "tls-key", global = true, value_name = "FILE")]
    pub tls_key: Option<PathBuf>,
    /// CA certificate(s) that sign the server's certificate (PEM)
    #[arg(long = "tls-ca", global = true, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// Start TLS before the server's INFO (the server must be configured with handshake_first)
    #[arg(long = "tlsfirst", global = true)]
    pub tls_first: bool,
    /// How long a connect may take
    #[arg(long = "connect-timeout", global = true, default_value = "10s", value_parser = crate::settings::parse_duration)]
    pub connect_timeout: Duration,
}

impl ConnArgs {
    /// Usage errors: flags that need each other, files that are not there.
    pub fn validate(&self) -> Result<(), String> {
        if self.user.is_some() != self.password.is_some() {
            return Err("--user and --password go together".into());
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err("--tls-cert and --tls-key go together".into());
        }
        let auths = [
            self.creds.is_some(),
            self.user.is_some(),
            self.token.is_some(),
            self.nkey.is_some(),
        ];
        if auths.iter().filter(|&&a| a).count() > 1 {
            return Err("use one of --creds, --user/--password, --token and --nkey".into());
        }
        for (flag, p) in [
            ("--creds", &self.creds),
            ("--nkey", &self.nkey),
            ("--tls-cert", &self.tls_cert),
            ("--tls-key", &self.tls_key),
            ("--tls-ca", &self.tls_ca),
        ] {
            if let Some(p) = p {
                if !p.is_file() {
                    return Err(format!("{flag} {}: no such file", p.display()));
                }
            }
        }
        Ok(())
    }

    /// What the Result records about the connection (`settings.connection`, as natsperf's):
    /// file paths and the user name, the password and token as "[redacted]", URLs redacted.
    pub fn echo(&self, servers: &str) -> serde_json::Value {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        let mut m = serde_json::Map::new();
        let mut put = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                m.insert(k.into(), serde_json::Value::String(v));
            }
        };
        put("servers", Some(redact(servers)));
        put("creds", path(&self.creds));
        put("nkey", path(&self.nkey));
        put("user", self.user.clone());
        put("password", self.password.as_ref().map(|_| REDACTED.into()));
        put("token", self.token.as_ref().map(|_| REDACTED.into()));
        put("tls_cert", path(&self.tls_cert));
        put("tls_key", path(&self.tls_key));
        put("tls_ca", path(&self.tls_ca));
        if self.tls_first {
            m.insert("tls_first".into(), true.into());
        }
        m.insert(
            "connect_timeout".into(),
            (self.connect_timeout.as_nanos() as u64).into(),
        );
        serde_json::Value::Object(m)
    }

    async fn options(&self) -> Result<async_nats::ConnectOptions, String> {
        let mut o = match &self.creds {
            Some(p) => async_nats::ConnectOptions::with_credentials_file(p)
                .await
                .map_err(|e| format!("--creds {}: {e}", p.display()))?,
            None => async_nats::ConnectOptions::new(),
        };
        if let (Some(u), Some(p)) = (&self.user, &self.password) {
            o = o.user_and_password(u.clone(), p.clone());
        }
        if let Some(t) = &self.token {
            o = o.token(t.clone());
        }
        if let Some(p) = &self.nkey {
            let seed =
                std::fs::read_to_string(p).map_err(|e| format!("--nkey {}: {e}", p.display()))?;
            // The nats tools' seed files may hold other lines: take the seed's.
            let seed = seed
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with('S') && l.len() > 50)
                .ok_or_else(|| format!("--nkey {}: no NKey seed in the file", p.display()))?;
            o = o.nkey(seed.to_string());
        }
        if let (Some(c), Some(k)) = (&self.tls_cert, &self.tls_key) {
            o = o
                .add_client_certificate(c.clone(), k.clone())
                .require_tls(true);
        }
        if let Some(ca) = &self.tls_ca {
            o = o.add_root_certificates(ca.clone()).require_tls(true);
        }
        if self.tls_first {
            o = o.tls_first();
        }
        Ok(o.connection_timeout(self.connect_timeout))
    }
}

/// What a secret is replaced with (natsperf's `connect` redaction).
const REDACTED: &str = "[redacted]";

/// How a workload wants its connection.
pub struct Want {
    pub name: String,
    pub capacity: usize,
    pub request_timeout: Duration,
    /// Counts the connection's slow-consumer events.
    pub slow: Arc<AtomicI64>,
}

/// Connects to `url` within --connect-timeout.
pub async fn connect(url: &str, args: &ConnArgs, want: Want) -> Result<async_nats::Client, String> {
    let s = want.slow.clone();
    let opts = args
        .options()
        .await?
        .name(want.name)
        .request_timeout(Some(want.request_timeout))
        .subscription_capacity(want.capacity)
        .event_callback(move |e| {
            let s = s.clone();
            async move {
                if let async_nats::Event::SlowConsumer(_) = e {
                    s.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    let bound = args.connect_timeout + Duration::from_secs(1);
    tokio::time::timeout(bound, opts.connect(url))
        .await
        .map_err(|_| format!("connect to {}: timed out", redact(url)))?
        .map_err(|e| format!("connect to {}: {e}", redact(url)))
}

/// The URL without credentials, for messages and the Result.
pub fn redact(url: &str) -> String {
    url.split(',')
        .map(|u| match (u.find("://"), u.rfind('@')) {
            (Some(s), Some(at)) if at > s => format!("{}://***@{}", &u[..s], &u[at + 1..]),
            (None, Some(at)) => format!("***@{}", &u[at + 1..]),
            _ => u.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_credentials() {
        assert_eq!(
            redact("nats://u:p@127.0.0.1:4222"),
            "nats://***@127.0.0.1:4222"
        );
        assert_eq!(redact("nats://127.0.0.1:4222"), "nats://127.0.0.1:4222");
        assert_eq!(redact("nats://t@a:1,tls://b:2"), "nats://***@a:1,tls://b:2");
    }

    #[test]
    fn echo_names_never_values() {
        let a = ConnArgs {
            user: Some("alice".into()),
            password: Some("s3cret".into()),
            ..Default::default()
        };
        let e = a.echo("nats://tok@h:1").to_string();
        assert!(e.contains("[redacted]") && !e.contains("s3cret") && !e.contains("tok@"));
    }

    #[test]
    fn flags_that_go_together() {
        let mut a = ConnArgs {
            user: Some("u".into()),
            ..Default::default()
        };
        assert!(a.validate().is_err());
        a.password = Some("p".into());
        assert!(a.validate().is_ok());
        a.token = Some("t".into());
        assert!(a.validate().is_err());
    }
}

//! The reference for natsperf-rust's subscriber overhead: a bare async-nats subscriber that
//! counts MSGS messages and exits, with no stamp decoding, latency or sequence accounting.
//! It prints "ready" on stderr once subscribed, as natsperf-rust does. Usage: bare_sub URL
//! SUBJECT MSGS (docs/performance.md compares its CPU seconds with `natsperf-rust sub`'s).

use futures::StreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: bare_sub URL SUBJECT MSGS");
        std::process::exit(2);
    }
    let msgs: u64 = args[3].parse()?;
    let client = async_nats::ConnectOptions::new()
        .subscription_capacity(1 << 20)
        .connect(args[1].as_str())
        .await?;
    let mut sub = client.subscribe(args[2].clone()).await?;
    client.flush().await?;
    eprintln!("bare_sub: ready");
    let mut n = 0u64;
    let mut bytes = 0usize;
    while n < msgs {
        match sub.next().await {
            Some(m) => {
                n += 1;
                bytes += m.payload.len();
            }
            None => break,
        }
    }
    eprintln!("bare_sub: {n} messages, {bytes} bytes");
    Ok(())
}

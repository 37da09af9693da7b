//! The reference for natsperf-rust's subscriber overhead: a bare async-nats subscriber that
//! counts MSGS messages and exits, with no stamp decoding, latency or sequence accounting.
//! It prints "ready" on stderr once subscribed, as natsperf-rust does. Usage: bare_sub URL
//! SUBJECT MSGS [spawn] (docs/performance.md compares its CPU seconds with `natsperf-rust
//! sub`'s). With `spawn` the loop runs in a spawned task on a runtime worker, as
//! natsperf-rust's receivers do; without, on `block_on`'s thread. It prints its rate
//! (messages per second from the first message to the last) on stdout, as Go's bare
//! subscriber in `tools/perfcompare` does.

use futures::StreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 && !(args.len() == 5 && args[4] == "spawn") {
        eprintln!("usage: bare_sub URL SUBJECT MSGS [spawn]");
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
    let count = async move {
        let (mut n, mut bytes) = (0u64, 0usize);
        let mut first = None;
        while n < msgs {
            match sub.next().await {
                Some(m) => {
                    first.get_or_insert_with(std::time::Instant::now);
                    n += 1;
                    bytes += m.payload.len();
                }
                None => break,
            }
        }
        let took = first.map(|f| f.elapsed().as_secs_f64()).unwrap_or(0.0);
        (n, bytes, took)
    };
    let (n, bytes, took) = if args.len() == 5 {
        tokio::spawn(count).await?
    } else {
        count.await
    };
    eprintln!("bare_sub: {n} messages, {bytes} bytes");
    if n > 1 && took > 0.0 {
        println!("{}", (n - 1) as f64 / took);
    }
    Ok(())
}

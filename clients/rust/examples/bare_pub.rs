//! The reference for natsperf-rust's publisher overhead: a bare async-nats publish loop with no
//! stamp, no schedule and no recording. Usage: bare_pub URL SUBJECT MSGS SIZE [spawn]
//! (docs/performance.md compares its CPU seconds with `natsperf-rust pub`'s). With `spawn`
//! the loop runs in a spawned task on a runtime worker, as natsperf-rust's publishers do;
//! without, on `block_on`'s thread. It prints its rate (messages per second from the first
//! publish to the end of the flush) on stdout; `tools/perfcompare -cases rpub` reads it.

use bytes::Bytes;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 && !(args.len() == 6 && args[5] == "spawn") {
        eprintln!("usage: bare_pub URL SUBJECT MSGS SIZE [spawn]");
        std::process::exit(2);
    }
    let (url, subject) = (&args[1], args[2].clone());
    let (msgs, size): (u64, usize) = (args[3].parse()?, args[4].parse()?);
    let client = async_nats::connect(url.as_str()).await?;
    let subject = async_nats::Subject::from(subject);
    let publish = async move {
        let start = std::time::Instant::now();
        let buf = vec![b'x'; size];
        for _ in 0..msgs {
            client
                .publish(subject.clone(), Bytes::copy_from_slice(&buf))
                .await?;
        }
        client.flush().await?;
        println!("{}", msgs as f64 / start.elapsed().as_secs_f64());
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    };
    if args.len() == 6 {
        tokio::spawn(publish)
            .await?
            .map_err(|e| e as Box<dyn std::error::Error>)
    } else {
        publish.await.map_err(|e| e as Box<dyn std::error::Error>)
    }
}

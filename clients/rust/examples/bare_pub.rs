//! The reference for natsperf-rust's publisher overhead: a bare async-nats publish loop with no
//! stamp, no schedule and no recording. Usage: bare_pub URL SUBJECT MSGS SIZE
//! (docs/performance.md compares its CPU seconds with `natsperf-rust pub`'s).

use bytes::Bytes;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: bare_pub URL SUBJECT MSGS SIZE");
        std::process::exit(2);
    }
    let (url, subject) = (&args[1], args[2].clone());
    let (msgs, size): (u64, usize) = (args[3].parse()?, args[4].parse()?);
    let client = async_nats::connect(url.as_str()).await?;
    let subject = async_nats::Subject::from(subject);
    let buf = vec![b'x'; size];
    for _ in 0..msgs {
        client
            .publish(subject.clone(), Bytes::copy_from_slice(&buf))
            .await?;
    }
    client.flush().await?;
    Ok(())
}

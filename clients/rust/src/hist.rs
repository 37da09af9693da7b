//! natsperf's latency histograms: HdrHistograms of nanoseconds (1 ns to 1 h, 3 significant
//! digits, as the Go `internal/histo`) and their codec, HdrHistogram's standard V2 compressed
//! encoding in base64, which natsperf (hdrhistogram-go) reads.

use base64::Engine;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

pub const LOWEST: u64 = 1;
pub const HIGHEST: u64 = 3_600_000_000_000;
pub const DIGITS: u8 = 3;

pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(LOWEST, HIGHEST, DIGITS).expect("valid histogram bounds")
}

/// Records `ns` clamped into the trackable range, so nothing is silently dropped.
pub fn record_ns(h: &mut Histogram<u64>, ns: i64) {
    let v = (ns.max(LOWEST as i64) as u64).min(HIGHEST);
    h.record(v).expect("value inside the bounds");
}

/// HdrHistogram V2 compressed ("deflate") encoding, base64: what hdrhistogram-go's Decode reads.
pub fn encode(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut buf)
        .expect("serialize histogram to memory");
    base64::engine::general_purpose::STANDARD.encode(buf)
}

/// The inverse of `encode`.
pub fn decode(s: &str) -> Histogram<u64> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("a histogram this program encoded");
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut &raw[..])
        .expect("a histogram this program encoded")
}

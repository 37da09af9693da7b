//! The 16-byte stamp natsperf writes at the start of every payload that has room, byte for byte
//! the layout of natsperf's Go `internal/stamp` (checked by the shared vectors in
//! `testdata/vectors/stamp.json`, which both `go test` and `cargo test` read).
//!
//! Little endian:
//! - `[0:8]`   send time, Unix nanoseconds (i64); a fixed-rate sender writes the intended time
//! - `[8:13]`  sequence number, 40 bits, starting at 1
//! - `[13:16]` publisher id, 23 bits, never 0; the top bit marks an extended stamp
//! - `[16:24]` extended stamps only: the actual send time, Unix nanoseconds (i64)

/// Payload bytes a stamp takes; smaller payloads carry none.
pub const SIZE: usize = 16;
/// Payload bytes an extended stamp takes.
pub const EXT_SIZE: usize = 24;
/// Largest sequence number the layout holds.
pub const MAX_SEQ: u64 = (1 << 40) - 1;
/// Largest publisher id the layout holds.
pub const MAX_PUBLISHER: u32 = (1 << 23) - 1;
const EXT_FLAG: u64 = 1 << 63;

/// A decoded stamp. `actual_nanos` is 0 for a plain stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub publisher: u32,
    pub seq: u64,
    pub send_nanos: i64,
    pub actual_nanos: i64,
}

/// Writes a plain stamp into `buf[0..16]`. Panics if `buf` is shorter than [`SIZE`].
pub fn put(buf: &mut [u8], publisher: u32, seq: u64, send_nanos: i64) {
    buf[0..8].copy_from_slice(&(send_nanos as u64).to_le_bytes());
    let v = (seq & MAX_SEQ) | (u64::from(publisher & MAX_PUBLISHER) << 40);
    buf[8..16].copy_from_slice(&v.to_le_bytes());
}

/// Writes an extended stamp (intended and actual send time) into `buf[0..24]`.
pub fn put_ext(buf: &mut [u8], publisher: u32, seq: u64, intended_nanos: i64, actual_nanos: i64) {
    buf[0..8].copy_from_slice(&(intended_nanos as u64).to_le_bytes());
    let v = (seq & MAX_SEQ) | (u64::from(publisher & MAX_PUBLISHER) << 40) | EXT_FLAG;
    buf[8..16].copy_from_slice(&v.to_le_bytes());
    buf[16..24].copy_from_slice(&(actual_nanos as u64).to_le_bytes());
}

/// How far a stamp's send time may lie from the receiver's clock (Go's `stamp.Window`): the
/// layout has no magic number, so text and JSON decode too, and are told apart by their time
/// (printable ASCII reads as 2043 or later). A day leaves room for unsynchronised clocks.
pub const WINDOW: i64 = 24 * 60 * 60 * 1_000_000_000;

/// Whether a stamp sent at `send_nanos` can be this run's at a receiver whose clock reads `now`.
pub fn current(send_nanos: i64, now: i64) -> bool {
    send_nanos > now - WINDOW && send_nanos < now + WINDOW
}

/// Reads a stamp, plain or extended; `None` when `buf` is too short or holds no natsperf stamp.
pub fn get(buf: &[u8]) -> Option<Stamp> {
    if buf.len() < SIZE {
        return None;
    }
    let send_nanos = u64::from_le_bytes(buf[0..8].try_into().unwrap()) as i64;
    let v = u64::from_le_bytes(buf[8..16].try_into().unwrap());
    let (seq, publisher) = (v & MAX_SEQ, ((v >> 40) as u32) & MAX_PUBLISHER);
    if publisher == 0 || seq == 0 || send_nanos <= 0 {
        return None;
    }
    let mut actual_nanos = 0;
    if v & EXT_FLAG != 0 && buf.len() >= EXT_SIZE {
        actual_nanos = (u64::from_le_bytes(buf[16..24].try_into().unwrap()) as i64).max(0);
    }
    Some(Stamp {
        publisher,
        seq,
        send_nanos,
        actual_nanos,
    })
}

/// Hands out publisher ids: a base plus the client index plus 1, as Go's `stamp.IDs.For`.
#[derive(Debug, Clone, Copy)]
pub struct Ids(pub u32);

impl Ids {
    /// A random base in the same space as Go's `stamp.NewIDs` (a multiple of 4096 below 2048<<12),
    /// so two processes publishing to one receiver rarely clash.
    pub fn random() -> Ids {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos(),
        );
        Ids(((h.finish() % 2048) as u32) << 12)
    }

    /// The id of client `index` (0-based).
    pub fn for_index(self, index: usize) -> u32 {
        let id = self.0.wrapping_add(index as u32).wrapping_add(1) & MAX_PUBLISHER;
        if id == 0 {
            1
        } else {
            id
        }
    }
}

/// A message body of `size` bytes: room for the stamp, then the same readable filler as Go.
pub fn payload(size: usize) -> Vec<u8> {
    (0..size)
        .map(|i| if i < SIZE { 0 } else { b'a' + (i % 26) as u8 })
        .collect()
}

/// Message payloads cut from shared chunks: one allocation per `CHUNK` bytes, not one per
/// message. async-nats takes each payload by value (`Bytes`); copied into a fresh allocation per
/// message (as a plain publish loop does), the malloc on the publisher's thread and the free on
/// the connection task's cost more than natsperf's stamp and recording together. Each payload
/// is a distinct, never rewritten region of its chunk; a chunk is freed when its last payload is.
pub struct Payloads {
    template: Vec<u8>,
    chunk: bytes::BytesMut,
}

/// How many payload bytes one allocation holds (payloads larger than this get their own).
pub const CHUNK: usize = 64 * 1024;

impl Payloads {
    /// Payloads of `size` bytes, each a copy of [`payload`] with its stamp written by the caller.
    pub fn new(size: usize) -> Payloads {
        Payloads {
            template: payload(size),
            chunk: bytes::BytesMut::new(),
        }
    }

    /// The next payload's bytes: write its stamp here, then [`Payloads::take`] it.
    pub fn buf(&mut self) -> &mut [u8] {
        &mut self.template
    }

    /// The payload as written so far, in its own region of the current chunk.
    pub fn take(&mut self) -> bytes::Bytes {
        let size = self.template.len();
        if self.chunk.capacity() - self.chunk.len() < size {
            self.chunk = bytes::BytesMut::with_capacity(CHUNK.max(size));
        }
        self.chunk.extend_from_slice(&self.template);
        self.chunk.split().freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    // Payloads taken from one chunk keep what was written when they were taken, share one
    // allocation, and a chunk that is full gives way to a new one.
    #[test]
    fn payloads_share_chunks_and_keep_their_stamps() {
        let mut p = Payloads::new(100);
        let per_chunk = CHUNK / 100;
        let mut taken = Vec::new();
        for seq in 1..=(per_chunk as u64 + 3) {
            put(p.buf(), 5, seq, 1_000 + seq as i64);
            taken.push(p.take());
        }
        for (i, b) in taken.iter().enumerate() {
            let s = get(b).unwrap();
            assert_eq!(
                (b.len(), s.seq, s.send_nanos),
                (100, i as u64 + 1, 1_001 + i as i64)
            );
            assert_eq!(&b[16..], &payload(100)[16..]);
        }
        let start = |b: &bytes::Bytes| b.as_ptr() as usize;
        assert_eq!(
            start(&taken[1]) - start(&taken[0]),
            100,
            "one chunk, back to back"
        );
        let (last, next) = (&taken[per_chunk - 1], &taken[per_chunk]);
        assert_ne!(
            start(next),
            start(last) + 100,
            "a new chunk once the first is full"
        );
        let mut big = Payloads::new(CHUNK + 1);
        assert_eq!(big.take().len(), CHUNK + 1);
    }

    #[derive(Deserialize)]
    struct Vectors {
        vectors: Vec<Vector>,
    }

    #[derive(Deserialize)]
    struct Vector {
        name: String,
        hex: String,
        valid: bool,
        #[serde(default)]
        publisher: u32,
        #[serde(default)]
        seq: u64,
        #[serde(default)]
        send_nanos: i64,
        #[serde(default)]
        actual_nanos: i64,
        #[serde(default)]
        extended: bool,
        #[serde(default)]
        decode_only: bool,
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn shared_vectors() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/vectors/stamp.json"
        );
        let v: Vectors = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert!(v.vectors.len() >= 8, "too few vectors");
        for t in &v.vectors {
            let buf = unhex(&t.hex);
            let got = get(&buf);
            if !t.valid {
                assert_eq!(got, None, "{}: decoded a stamp from invalid bytes", t.name);
                continue;
            }
            let want = Stamp {
                publisher: t.publisher,
                seq: t.seq,
                send_nanos: t.send_nanos,
                actual_nanos: t.actual_nanos,
            };
            assert_eq!(got, Some(want), "{}: decode", t.name);
            if t.decode_only {
                continue;
            }
            // Encoding the fields gives the same bytes (the payload beyond the stamp is copied).
            let mut out = buf.clone();
            if t.extended {
                put_ext(&mut out, t.publisher, t.seq, t.send_nanos, t.actual_nanos);
            } else {
                put(&mut out, t.publisher, t.seq, t.send_nanos);
            }
            assert_eq!(out, buf, "{}: encode", t.name);
        }
    }

    #[test]
    fn ids_match_go() {
        assert_eq!(Ids(0).for_index(0), 1);
        assert_eq!(Ids(4096).for_index(2), 4099);
        assert_eq!(Ids(MAX_PUBLISHER).for_index(0), 1); // wraps to 0, never 0
    }
}
